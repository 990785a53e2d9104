// The parameter tables in docs/ match the DEFAULT_* configs they are generated from (`npm run docs` rewrites
// them); a stale table or a marker naming a constant that does not exist fails here.
import { describe, expect, it } from 'vitest';
import { paramRows, renderPage, updateDocs } from '../../../tools/docs/params.ts';

describe('docs parameter tables', () => {
  it('every generated block in docs/*.md is up to date', async () => {
    const results = await updateDocs({ check: true });
    expect(results.length).toBeGreaterThan(0);
    expect(results.filter((r) => r.stale).map((r) => r.file)).toEqual([]);
  });

  it('a table gives each default with the doc comment of its field and the reason written beside it', async () => {
    const rows = await paramRows('perception/cluster', 'DEFAULT_CLUSTER_CONFIG');
    const voxel = rows.find((r) => r.key === 'voxelM');
    expect(voxel?.value).toBe('`0.3`');
    expect(voxel?.doc).toMatch(/^Voxel edge in x and y/);
    expect(voxel?.why).toMatch(/AV2/);
  });

  it('a block edited by hand is rewritten, and an unknown constant is an error naming it', async () => {
    const page = '<!-- params:perception/cluster DEFAULT_CLUSTER_CONFIG -->\n| stale |\n<!-- /params -->\n';
    expect(await renderPage(page)).toMatch(/\| `rangeM` +\| `40` +\|/);
    await expect(
      renderPage('<!-- params:perception/cluster DEFAULT_NOPE -->\n<!-- /params -->'),
    ).rejects.toThrow(/DEFAULT_NOPE/);
  });
});
