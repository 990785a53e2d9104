// The Waymo Open Motion Dataset `Scenario` protocol buffer schema (scenario.proto + map.proto of
// waymo-open-dataset, proto2, public field numbers), as a protobufjs reflection root written by hand.
import protobuf from 'protobufjs';

type Fields = Record<string, { type: string; id: number; rule?: 'repeated'; options?: { packed: boolean } }>;
const opt = (type: string, id: number) => ({ type, id });
const rep = (type: string, id: number) => ({ type, id, rule: 'repeated' as const });
/** proto2 repeated scalars are unpacked unless marked `[packed = true]`. */
const unpacked = (type: string, id: number) => ({ ...rep(type, id), options: { packed: false } });
const packed = (type: string, id: number) => ({ ...rep(type, id), options: { packed: true } });
const msg = (fields: Fields, nested?: Record<string, unknown>) => ({ fields, ...(nested ? { nested } : {}) });

const DESCRIPTOR = {
  nested: {
    waymo: {
      nested: {
        open_dataset: {
          nested: {
            // ---- scenario.proto ----
            ObjectState: msg({
              center_x: opt('double', 2),
              center_y: opt('double', 3),
              center_z: opt('double', 4),
              length: opt('float', 5),
              width: opt('float', 6),
              height: opt('float', 7),
              heading: opt('float', 8),
              velocity_x: opt('float', 9),
              velocity_y: opt('float', 10),
              valid: opt('bool', 11),
            }),
            Track: msg(
              { id: opt('int32', 1), object_type: opt('ObjectType', 2), states: rep('ObjectState', 3) },
              {
                ObjectType: {
                  values: {
                    TYPE_UNSET: 0,
                    TYPE_VEHICLE: 1,
                    TYPE_PEDESTRIAN: 2,
                    TYPE_CYCLIST: 3,
                    TYPE_OTHER: 4,
                  },
                },
              },
            ),
            DynamicMapState: msg({ lane_states: rep('TrafficSignalLaneState', 1) }),
            RequiredPrediction: msg(
              { track_index: opt('int32', 1), difficulty: opt('DifficultyLevel', 2) },
              { DifficultyLevel: { values: { NONE: 0, LEVEL_1: 1, LEVEL_2: 2 } } },
            ),
            Scenario: msg({
              scenario_id: opt('string', 5),
              timestamps_seconds: unpacked('double', 1),
              current_time_index: opt('int32', 10),
              tracks: rep('Track', 2),
              dynamic_map_states: rep('DynamicMapState', 7),
              map_features: rep('MapFeature', 8),
              sdc_track_index: opt('int32', 6),
              objects_of_interest: unpacked('int32', 4),
              tracks_to_predict: rep('RequiredPrediction', 11),
            }),
            // ---- map.proto ----
            TrafficSignalLaneState: msg(
              { lane: opt('int64', 1), state: opt('State', 2), stop_point: opt('MapPoint', 3) },
              {
                State: {
                  values: {
                    LANE_STATE_UNKNOWN: 0,
                    LANE_STATE_ARROW_STOP: 1,
                    LANE_STATE_ARROW_CAUTION: 2,
                    LANE_STATE_ARROW_GO: 3,
                    LANE_STATE_STOP: 4,
                    LANE_STATE_CAUTION: 5,
                    LANE_STATE_GO: 6,
                    LANE_STATE_FLASHING_STOP: 7,
                    LANE_STATE_FLASHING_CAUTION: 8,
                  },
                },
              },
            ),
            MapFeature: {
              oneofs: {
                feature_data: {
                  oneof: [
                    'lane',
                    'road_line',
                    'road_edge',
                    'stop_sign',
                    'crosswalk',
                    'speed_bump',
                    'driveway',
                  ],
                },
              },
              fields: {
                id: opt('int64', 1),
                lane: opt('LaneCenter', 3),
                road_line: opt('RoadLine', 4),
                road_edge: opt('RoadEdge', 5),
                stop_sign: opt('StopSign', 7),
                crosswalk: opt('Crosswalk', 8),
                speed_bump: opt('SpeedBump', 9),
                driveway: opt('Driveway', 10),
              },
            },
            MapPoint: msg({ x: opt('double', 1), y: opt('double', 2), z: opt('double', 3) }),
            BoundarySegment: msg({
              lane_start_index: opt('int32', 1),
              lane_end_index: opt('int32', 2),
              boundary_feature_id: opt('int64', 3),
              boundary_type: opt('RoadLine.RoadLineType', 4),
            }),
            LaneNeighbor: msg({
              feature_id: opt('int64', 1),
              self_start_index: opt('int32', 2),
              self_end_index: opt('int32', 3),
              neighbor_start_index: opt('int32', 4),
              neighbor_end_index: opt('int32', 5),
              boundaries: rep('BoundarySegment', 6),
            }),
            LaneCenter: msg(
              {
                speed_limit_mph: opt('double', 1),
                type: opt('LaneType', 2),
                interpolating: opt('bool', 3),
                polyline: rep('MapPoint', 8),
                entry_lanes: packed('int64', 9),
                exit_lanes: packed('int64', 10),
                left_boundaries: rep('BoundarySegment', 13),
                right_boundaries: rep('BoundarySegment', 14),
                left_neighbors: rep('LaneNeighbor', 11),
                right_neighbors: rep('LaneNeighbor', 12),
              },
              {
                LaneType: {
                  values: { TYPE_UNDEFINED: 0, TYPE_FREEWAY: 1, TYPE_SURFACE_STREET: 2, TYPE_BIKE_LANE: 3 },
                },
              },
            ),
            RoadEdge: msg(
              { type: opt('RoadEdgeType', 1), polyline: rep('MapPoint', 2) },
              {
                RoadEdgeType: {
                  values: { TYPE_UNKNOWN: 0, TYPE_ROAD_EDGE_BOUNDARY: 1, TYPE_ROAD_EDGE_MEDIAN: 2 },
                },
              },
            ),
            RoadLine: msg(
              { type: opt('RoadLineType', 1), polyline: rep('MapPoint', 2) },
              {
                RoadLineType: {
                  values: {
                    TYPE_UNKNOWN: 0,
                    TYPE_BROKEN_SINGLE_WHITE: 1,
                    TYPE_SOLID_SINGLE_WHITE: 2,
                    TYPE_SOLID_DOUBLE_WHITE: 3,
                    TYPE_BROKEN_SINGLE_YELLOW: 4,
                    TYPE_BROKEN_DOUBLE_YELLOW: 5,
                    TYPE_SOLID_SINGLE_YELLOW: 6,
                    TYPE_SOLID_DOUBLE_YELLOW: 7,
                    TYPE_PASSING_DOUBLE_YELLOW: 8,
                  },
                },
              },
            ),
            StopSign: msg({ lane: unpacked('int64', 1), position: opt('MapPoint', 2) }),
            Crosswalk: msg({ polygon: rep('MapPoint', 1) }),
            SpeedBump: msg({ polygon: rep('MapPoint', 1) }),
            Driveway: msg({ polygon: rep('MapPoint', 1) }),
          },
        },
      },
    },
  },
};

let root: protobuf.Root | null = null;

/** The `waymo.open_dataset.Scenario` message type (built once). */
export function scenarioType(): protobuf.Type {
  root ??= protobuf.Root.fromJSON(DESCRIPTOR as protobuf.INamespace);
  return root.lookupType('waymo.open_dataset.Scenario');
}
