// Half extents of another agent's box seen along and across a heading, from the cosine and sine of its yaw
// relative to that heading. Shared by the town traffic and the IDM agent to decide who is in a path.

/** Half extent along the heading of a length × width box turned by rel (cosRel = cos rel, sinRel = sin rel). */
export function halfExtentAlong(length: number, width: number, cosRel: number, sinRel: number): number {
  return (length / 2) * Math.abs(cosRel) + (width / 2) * Math.abs(sinRel);
}

/** Half extent across the heading of the same box. */
export function halfExtentAcross(length: number, width: number, cosRel: number, sinRel: number): number {
  return (length / 2) * Math.abs(sinRel) + (width / 2) * Math.abs(cosRel);
}
