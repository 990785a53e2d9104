// Self-description stays complete (issue 19): every column of every record kind has a unit in the
// schema metadata and a row in docs/formats.md; the canonical class vocabulary maps each source's names.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { canonicalClass, COLUMN_UNITS, conventionMetadata } from '../../core/arrow/conventions.ts';
import { FIELDS, type RecordKind, schemaFor } from '../../core/arrow/schemas.ts';

const DOC = fs.readFileSync(path.join(import.meta.dirname, '..', '..', 'docs', 'formats.md'), 'utf8');

describe('conventions', () => {
  for (const kind of Object.keys(FIELDS) as RecordKind[]) {
    it(`${kind}: every column has a unit in the metadata and is documented`, () => {
      const names = FIELDS[kind].map((f) => f.name);
      expect(Object.keys(COLUMN_UNITS[kind]).sort()).toEqual([...names].sort());
      const meta: Record<string, string> = kind === 'tokens' ? { grid_rows: '1', grid_cols: '1' } : {};
      const units = JSON.parse(schemaFor(kind, meta).metadata.get('drivekit.units')!) as Record<
        string,
        string
      >;
      expect(units).toEqual(COLUMN_UNITS[kind]);
      for (const n of names) expect(DOC, `docs/formats.md lacks \`${n}\``).toContain(`\`${n}\``);
      for (const key of Object.keys(conventionMetadata(kind))) expect(DOC).toContain(`\`${key}\``);
    });
  }

  it('maps each source to one class vocabulary', () => {
    expect(['Car', 'REGULAR_VEHICLE', 'vehicle.car', 'Van'].map(canonicalClass)).toEqual([
      'car',
      'car',
      'car',
      'car',
    ]);
    expect(['Pedestrian', 'human.pedestrian.adult', 'Person_sitting'].map(canonicalClass)).toEqual([
      'pedestrian',
      'pedestrian',
      'pedestrian',
    ]);
    expect(['Cyclist', 'BICYCLIST', 'Truck', 'object'].map(canonicalClass)).toEqual([
      'cyclist',
      'cyclist',
      'other',
      'other',
    ]);
  });
});
