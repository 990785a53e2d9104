// The four class groups per-class recall is reported in (car, pedestrian, cyclist, other): drivekit's one
// canonical class vocabulary (core/arrow/conventions.ts), also written as the `class` column of Boxes files.

export {
  CANONICAL_CLASSES as CLASS_GROUPS,
  type CanonicalClass as ClassGroup,
  canonicalClass as classGroupOf,
} from '../../core/arrow/conventions.ts';
