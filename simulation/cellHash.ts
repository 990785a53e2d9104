// The hash of a grid cell shared by the simulator's hashed grids (map/staticGrid.ts, spatialGrid.ts), so a
// query window (nearestK.ts) hashes cells of either without calling back into the grid.

/** Hash of cell (cx, cy) xor `salt` (0, or a group's salt); mask it with the table's size − 1. */
export function cellHash(cx: number, cy: number, salt: number): number {
  return Math.imul(cx, 73856093) ^ Math.imul(cy, 19349663) ^ salt;
}

/** The salt that separates group g's cells (a scenario of a batch) in one table. */
export function groupSalt(g: number): number {
  return Math.imul(g + 1, 83492791);
}
