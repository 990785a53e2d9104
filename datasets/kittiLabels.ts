// KITTI object labels (label_2/<frame>.txt, devkit readme): type, truncation, occlusion, alpha, 2D box,
// size h w l (m), bottom-centre location and rotation_y in rectified camera coordinates → LiDAR boxes.
import type { Box3 } from '../core/geometry/box.ts';
import { InputError } from '../core/errors.ts';
import { invertPose, type Pose } from '../core/geometry/pose.ts';
import { readInputText } from './inputFiles.ts';

export interface KittiLabel extends Box3 {
  label: string;
  /** Detection score when the file is a result file (16th column); 1 for ground truth. */
  score: number;
}

/**
 * Labels of one frame in the LiDAR frame. The camera location is the box's bottom centre (camera y
 * points down), so the geometric centre is h/2 above it; the heading (l axis, at rotation_y = 0
 * along camera +x) is d = (cos ry, 0, −sin ry), rotated into the LiDAR frame for the yaw about +z.
 * DontCare regions are not objects and are skipped.
 */
export function readKittiLabels(file: string, rectCamFromVelo: Pose): KittiLabel[] {
  const veloFromCam = invertPose(rectCamFromVelo);
  const m = veloFromCam;
  const out: KittiLabel[] = [];
  const lines = readInputText(file).split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (!line) continue;
    const f = line.split(/\s+/);
    if (f.length !== 15 && f.length !== 16)
      throw new InputError(file, `line ${i + 1}: expected 15 or 16 fields, got ${f.length}`);
    const type = f[0];
    if (type === 'DontCare') continue;
    const [h, w, l, x, y, z, ry] = f.slice(8, 15).map(Number);
    if (![h, w, l, x, y, z, ry].every(Number.isFinite))
      throw new InputError(file, `line ${i + 1}: non-numeric size, location or rotation`);
    const yc = y - h / 2;
    const dx = Math.cos(ry);
    const dz = -Math.sin(ry);
    out.push({
      label: type,
      score: f.length === 16 ? Number(f[15]) : 1,
      cx: m[0] * x + m[1] * yc + m[2] * z + m[3],
      cy: m[4] * x + m[5] * yc + m[6] * z + m[7],
      cz: m[8] * x + m[9] * yc + m[10] * z + m[11],
      length: l,
      width: w,
      height: h,
      yaw: Math.atan2(m[4] * dx + m[6] * dz, m[0] * dx + m[2] * dz),
    });
  }
  return out;
}
