// The four class groups per-class recall is reported in (car, pedestrian, cyclist, other), mapped from
// each source's own labels: KITTI object types, Argoverse 2 categories, nuScenes classes, the synthetic town.

export const CLASS_GROUPS = ['car', 'pedestrian', 'cyclist', 'other'] as const;
export type ClassGroup = (typeof CLASS_GROUPS)[number];

// Keys are lower-case labels. Cars are passenger cars and vans; riders with their bicycle or motorcycle
// are cyclists; parked bicycles, trucks, buses, trailers, cones, bollards and the rest are "other".
const GROUP_OF: Record<string, ClassGroup> = {
  // KITTI (label_2 types)
  car: 'car',
  van: 'car',
  pedestrian: 'pedestrian',
  person_sitting: 'pedestrian',
  cyclist: 'cyclist',
  // Argoverse 2 (annotations.feather categories)
  regular_vehicle: 'car',
  bicyclist: 'cyclist',
  motorcyclist: 'cyclist',
  wheeled_rider: 'cyclist',
  // nuScenes (category names)
  'vehicle.car': 'car',
  'human.pedestrian.adult': 'pedestrian',
  'human.pedestrian.child': 'pedestrian',
  'human.pedestrian.construction_worker': 'pedestrian',
  'human.pedestrian.police_officer': 'pedestrian',
  // the synthetic town: car, van, truck, cyclist, pedestrian (covered above)
};

/** The group of a source label (case-insensitive); anything not listed is 'other'. */
export function classGroupOf(label: string): ClassGroup {
  return GROUP_OF[label.toLowerCase()] ?? 'other';
}
