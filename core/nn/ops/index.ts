// Every op of the graph API, as plain functions over symbolic tensors.
// Gradient rules for all of them live in ../gradients.ts.
export * from './elementwise.ts';
export * from './linalg.ts';
export * from './reduce.ts';
export * from './shape.ts';
export * from './indexing.ts';
export * from './conv.ts';
export * from './norm.ts';
