// Geometry foundations shared by every stage: poses, oriented boxes, polygons, IoU, rectangle fitting.
export * from './pose.ts';
export * from './box.ts';
export * from './polygon.ts';
export * from './iou.ts';
export * from './minAreaRect.ts';
export * from './polyline.ts';
export * from './azimuthSectors.ts';
