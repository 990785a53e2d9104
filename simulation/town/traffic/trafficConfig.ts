// The town traffic's behaviour constants in one typed config: spawning, lane following, junctions, lane changes
// and walking. Follows TownConfig's pattern: field docs give the meaning, the comment above each DEFAULT_* value why.

/** A normal distribution clipped to [min, max] (Rng.normalClipped). */
export interface ClippedNormal {
  mean: number;
  sd: number;
  min: number;
  max: number;
}

/** How vehicles and cyclists are placed and parameterised at the start. */
export interface VehicleSpawnConfig {
  /** Random placements tried per vehicle before it is left out. */
  attempts: number;
  /** Spawns keep this far before the lane's stop line, metres. */
  stopLineMarginM: number;
  /** Spawns keep this far past the lane's start, metres. */
  laneStartMarginM: number;
  /** A lane is skipped when less room than this remains between those margins, metres. */
  minRoomM: number;
  /** Free road required ahead of a new vehicle, added to its length, metres. */
  clearAheadM: number;
  /** Overlap margin of the placement test, metres. */
  clearanceM: number;
  /** Cyclists ride this far inside the lane's right edge, metres. */
  cyclistEdgeM: number;
  /** Initial speed as a share of the vehicle's desired speed. */
  initialSpeedShare: number;
  /** The first lane-change cooldown is uniform in [0, this], seconds. */
  initialCooldownMaxS: number;
  /** Cyclists' desired speed, m/s. */
  cyclistSpeedMps: ClippedNormal;
  /** Drivers' desired speed as a share of the lane's speed limit. */
  speedLimitShare: ClippedNormal;
  /** IDM time headway of car, van and truck drivers, seconds. */
  timeHeadwayS: ClippedNormal;
  /** IDM time headway of cyclists, seconds. */
  cyclistTimeHeadwayS: number;
  /** IDM maximum acceleration of cars and vans, m/s². */
  maxAccelMps2: ClippedNormal;
  /** IDM maximum acceleration of trucks, m/s². */
  truckMaxAccelMps2: number;
  /** IDM maximum acceleration of cyclists, m/s². */
  cyclistMaxAccelMps2: number;
  /** IDM comfortable deceleration of every vehicle and cyclist, m/s². */
  comfortDecelMps2: number;
  /** IDM standstill gap of vehicles, metres. */
  minGapM: number;
  /** IDM standstill gap of cyclists, metres. */
  cyclistMinGapM: number;
}

/** Lane following: how far ahead a vehicle looks and what counts as in its path. */
export interface LaneFollowingConfig {
  /** Shortest look-ahead, metres (look-ahead = max(min, gain·v + base)). */
  lookaheadMinM: number;
  /** Look-ahead per m/s of own speed, seconds. */
  lookaheadGainS: number;
  /** Look-ahead added to gain·v, metres. */
  lookaheadBaseM: number;
  /** The planned lanes reach this far beyond the look-ahead, metres. */
  planMarginM: number;
  /** Spacing of the path samples, metres. */
  sampleStepM: number;
  /** Most path samples per vehicle and step. */
  maxSamples: number;
  /** Agents up to this far beyond the last path sample can still be leaders, metres. */
  leaderReachMarginM: number;
  /** Lateral clearance added to both half widths when deciding who is in my path, metres. */
  corridorMarginM: number;
  /** Floor of the curve-limited desired speed, m/s. */
  minDesiredSpeedMps: number;
  /** A step that would bring two boxes closer than this is refused, metres. */
  moveClearanceM: number;
}

/** Junctions: when a vehicle asks for its connector and when it lets go. */
export interface JunctionConfig {
  /** The connector is asked for at the braking distance with this deceleration (plus the margin), m/s². */
  decisionDecelMps2: number;
  /** Margin added to that braking distance, metres. */
  decisionMarginM: number;
  /** A refused vehicle already this far past its stop line enters anyway, metres. */
  overrunM: number;
  /** The connector is let go once the rear is this far into the lane after it, metres. */
  releaseMarginM: number;
}

/** Lane changes (MOBIL-like: when stuck behind someone slower, or now and then for variety). */
export interface LaneChangeConfig {
  /** Stuck: the leader is nearer than this, metres, ... */
  stuckGapM: number;
  /** ... holds my acceleration at least this far below the free-road one, m/s², ... */
  stuckAccelLossMps2: number;
  /** ... and does not pull away faster than this, m/s. */
  stuckOpeningMps: number;
  /** The cooldown after a change is uniform in [min, max], seconds. */
  cooldownMinS: number;
  cooldownMaxS: number;
  /** When the target lane has no room, look again after this, seconds. */
  retryS: number;
  /** No change within this far of the target lane's start, metres. */
  minLaneS: number;
  /** No change within this far before the target lane's stop line, metres. */
  stopLineMarginM: number;
  /** Agents farther away than this are not considered for the gap check, metres. */
  searchRadiusM: number;
  /** An agent is in the target lane within half the lane width + its half width + this, metres. */
  laneMarginM: number;
  /** Gap required beyond the two half lengths, metres (plus the headways below). */
  gapMarginM: number;
  /** Headway to the new follower, at its speed, seconds. */
  rearHeadwayS: number;
  /** Headway to the new leader, at my speed, seconds. */
  frontHeadwayS: number;
}

/** Pedestrians: spawning, crossing, personal space. */
export interface PedestrianConfig {
  /** Random placements tried per pedestrian before they are left out. */
  attempts: number;
  /** Sidewalk edges shorter than this are not spawned on, metres. */
  minEdgeM: number;
  /** Spawns keep this far from an edge's ends, metres. */
  edgeEndMarginM: number;
  /** Overlap margin of the placement test, metres. */
  clearanceM: number;
  /** Below this height a pedestrian walks at a child's speed, metres. */
  childHeightM: number;
  /** Children's walking speed is uniform in [min, max], m/s. */
  childSpeedMinMps: number;
  childSpeedMaxMps: number;
  /** Adults' walking speed, m/s. */
  adultSpeedMps: ClippedNormal;
  /** Distance kept right of the walking line is uniform in [min, max], metres. */
  keepRightMinM: number;
  keepRightMaxM: number;
  /** A crosswalk is clear when every vehicle is farther than its half length + this margin, metres, ... */
  crossingMarginM: number;
  /** ... + this headway times its speed, seconds. */
  crossingHeadwayS: number;
  /** After waiting this long at a crosswalk, walk on along the sidewalk, seconds. */
  giveUpWaitS: number;
  /** Others within this radius are checked for personal space, metres. */
  personalRadiusM: number;
  /** Someone ahead within both half sizes + this stops me, metres. */
  personalReachM: number;
  /** ... when also within both half widths + this sideways, metres. */
  personalLateralM: number;
  /** Blocked for longer than this, a pedestrian turns back, seconds. */
  turnBackS: number;
  /** Most walking-graph vertices passed in one step. */
  maxHopsPerStep: number;
}

export interface TrafficConfig {
  spawn: VehicleSpawnConfig;
  follow: LaneFollowingConfig;
  junction: JunctionConfig;
  laneChange: LaneChangeConfig;
  pedestrian: PedestrianConfig;
}

export const DEFAULT_VEHICLE_SPAWN: VehicleSpawnConfig = {
  // Enough to find a gap in the default town; a vehicle that finds none is simply left out.
  attempts: 60,
  // Nobody starts inside a junction queue.
  stopLineMarginM: 8,
  // Nobody starts in the junction the lane comes from.
  laneStartMarginM: 5,
  // Shorter lanes would put every spawn against one of the margins.
  minRoomM: 6,
  // About a car gap at standstill plus a little: no one starts on another's bumper.
  clearAheadM: 4,
  clearanceM: 0.5,
  // A cyclist's shoulder about a third of a metre from the kerb-side lane edge.
  cyclistEdgeM: 0.35,
  // Traffic starts moving; the warm-up settles it into queues.
  initialSpeedShare: 0.6,
  // Spreads the first lane changes over the warm-up instead of all at once.
  initialCooldownMaxS: 5,
  // Urban cycling, about 18 km/h, between 11 and 27 km/h.
  cyclistSpeedMps: { mean: 5, sd: 1, min: 3, max: 7.5 },
  // Most drivers near the limit, some up to 20 % over, some well under.
  speedLimitShare: { mean: 1, sd: 0.1, min: 0.75, max: 1.2 },
  // Around the IDM urban value (1.5 s), spread between drivers.
  timeHeadwayS: { mean: 1.4, sd: 0.2, min: 1.0, max: 2.0 },
  // Cyclists follow closer at their lower speeds.
  cyclistTimeHeadwayS: 1.0,
  // Around the IDM urban value (1 m/s²), spread between drivers.
  maxAccelMps2: { mean: 1.2, sd: 0.2, min: 0.8, max: 1.8 },
  // Loaded trucks pull away slowly.
  truckMaxAccelMps2: 0.7,
  // Gentle pedalling from a stop.
  cyclistMaxAccelMps2: 0.8,
  // A little firmer than the IDM textbook 1.5 m/s²: town stops come at short notice.
  comfortDecelMps2: 1.8,
  // The IDM standstill gap s0.
  minGapM: 2.0,
  // Cyclists queue closer.
  cyclistMinGapM: 1.5,
};

export const DEFAULT_LANE_FOLLOWING: LaneFollowingConfig = {
  // A junction or queue within 35 m is always seen, even from standstill.
  lookaheadMinM: 35,
  // About four seconds of travel ...
  lookaheadGainS: 4,
  // ... plus a stopping margin: enough to brake comfortably for anything on the path.
  lookaheadBaseM: 20,
  // The sampled path never runs short of planned lanes.
  planMarginM: 10,
  // Finer than any car length, so no leader falls between samples.
  sampleStepM: 1,
  // 256 m at 1 m spacing: beyond any look-ahead at town speeds.
  maxSamples: 256,
  // A leader's centre can lie past the last sample while its rear is on the path.
  leaderReachMarginM: 8,
  // Keeps a small buffer when passing parked cars and cyclists.
  corridorMarginM: 0.4,
  // A vehicle never plans to stand still in a bend.
  minDesiredSpeedMps: 0.5,
  // Boxes may come close in queues but never touch.
  moveClearanceM: 0.05,
};

export const DEFAULT_JUNCTION: JunctionConfig = {
  // A firm stop when refused, so the request can come late ...
  decisionDecelMps2: 3,
  // ... about two seconds out at town speeds: late enough not to hold the junction idle.
  decisionMarginM: 3,
  // Past the line, stopping would block the junction for everyone.
  overrunM: 0.5,
  // The rear is clear of the junction (and of its crossing connectors).
  releaseMarginM: 0.5,
};

export const DEFAULT_LANE_CHANGE: LaneChangeConfig = {
  // Only a leader close enough to matter makes a driver want to change.
  stuckGapM: 40,
  // A clear loss, not the small braking of a settled queue.
  stuckAccelLossMps2: 0.8,
  // A leader pulling away will not hold me back for long.
  stuckOpeningMps: 0.5,
  // Drivers do not weave: 6–12 s between changes.
  cooldownMinS: 6,
  cooldownMaxS: 12,
  // A gap may open soon; look again in a second.
  retryS: 1,
  // Not while still leaving a junction ...
  minLaneS: 8,
  // ... nor while approaching one (no change in a queue at the stop line).
  stopLineMarginM: 30,
  // Beyond every gap that could matter (rear headway at town speeds).
  searchRadiusM: 60,
  laneMarginM: 0.3,
  // About a car length of free road besides the headways.
  gapMarginM: 6,
  // The new follower must not have to brake hard ...
  rearHeadwayS: 1.2,
  // ... nor must I behind my new leader.
  frontHeadwayS: 1.0,
};

export const DEFAULT_PEDESTRIAN: PedestrianConfig = {
  attempts: 40,
  // Shorter edges are junction corners, where standing would block the crossing.
  minEdgeM: 2,
  edgeEndMarginM: 0.5,
  clearanceM: 0.3,
  // Children walk slower and more evenly.
  childHeightM: 1.45,
  childSpeedMinMps: 0.9,
  childSpeedMaxMps: 1.4,
  // Usual adult walking speed, about 4.9 km/h.
  adultSpeedMps: { mean: 1.35, sd: 0.2, min: 0.8, max: 1.9 },
  // Two-way flows on a sidewalk pass each other.
  keepRightMinM: 0.45,
  keepRightMaxM: 0.9,
  // A pedestrian steps out only when no vehicle is about to reach the crosswalk ...
  crossingMarginM: 4,
  // ... within 2.5 s at its current speed.
  crossingHeadwayS: 2.5,
  // Heavy traffic can keep a crosswalk busy; people give up and walk on.
  giveUpWaitS: 20,
  // Beyond any pedestrian's reach in one step.
  personalRadiusM: 4,
  // Half a metre of personal space ahead.
  personalReachM: 0.5,
  personalLateralM: 0.1,
  // Someone standing in the way for seconds is not going to move.
  turnBackS: 3,
  // A step (≈ 0.15 m) is far shorter than any edge; the guard only stops a loop.
  maxHopsPerStep: 4,
};

export const DEFAULT_TRAFFIC: TrafficConfig = {
  spawn: DEFAULT_VEHICLE_SPAWN,
  follow: DEFAULT_LANE_FOLLOWING,
  junction: DEFAULT_JUNCTION,
  laneChange: DEFAULT_LANE_CHANGE,
  pedestrian: DEFAULT_PEDESTRIAN,
};
