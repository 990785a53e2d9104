// `drivekit report <dir>`: a folder with a markdown report, a PNG, a training log and a log becomes one
// report.html with the tables as HTML, the picture inlined as a data: URI, the curves, the viewer command,
// and nothing the browser would fetch; an existing page is refused without --force.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InputError } from '../../../core/errors.ts';
import { writeHtmlReport } from '../../../tools/report/htmlReport.ts';
import { encodePng } from '../../../tools/report/png.ts';
import { renderMarkdown } from '../../../tools/report/markdown.ts';
import { drivekit, expectOneLineFailure } from './castLog.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dk-report-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const MD = `# drivekit demo report

Generated now.

## Self-trained detector

AP (%) by range:

| method | BEV@0.3 0–30 m | DTC \\|err\\| mean (m) |
|---|---:|---:|
| clustering | 41.5 | 1.20 |
| **shipped model** | 77.0 | 0.64 |

![BEV of one frame](bev.png)

## Closed-loop simulation

\`\`\`
agents   collision  off-road
idm      0.0 %      1.2 %
\`\`\`

- one <point>
- two \`code|pipe\`
`;

function makeRun(dir: string): void {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'report.md'), MD);
  const rgb = new Uint8Array(4 * 3 * 3).fill(200);
  fs.writeFileSync(path.join(dir, 'bev.png'), encodePng(4, 3, rgb));
  const train = [1, 2, 3, 4].map((s) => JSON.stringify({ step: 10 * s, loss: 5 / s, lr: 1e-3 })).join('\n');
  fs.mkdirSync(path.join(dir, 'tok'));
  fs.writeFileSync(path.join(dir, 'tok', 'train-log.jsonl'), train + '\n');
  // A log as the report sees one: a folder with meta.json and frames.arrow.
  fs.mkdirSync(path.join(dir, 'synthetic'));
  fs.writeFileSync(
    path.join(dir, 'synthetic', 'meta.json'),
    JSON.stringify({ frameCount: 7, source: 'synthetic' }),
  );
  fs.writeFileSync(path.join(dir, 'synthetic', 'frames.arrow'), '');
  fs.writeFileSync(path.join(dir, 'synthetic.mcap'), '');
}

describe('drivekit report', () => {
  it('writes one self-contained report.html: tables, inlined PNG, curves, viewer command, no http', async () => {
    const dir = path.join(tmp, 'run');
    makeRun(dir);
    const { stdout } = await drivekit('report', dir, '--json');
    const r = JSON.parse(stdout) as { file: string; images: number; curves: number; logs: number };
    expect(r).toMatchObject({ images: 1, curves: 1, logs: 1 });
    const html = fs.readFileSync(path.join(dir, 'report.html'), 'utf8');
    expect(fs.readdirSync(dir).filter((n) => n.endsWith('.html'))).toEqual(['report.html']);
    expect(html).toContain('<img src="data:image/png;base64,');
    const png = /<img src="data:image\/png;base64,([^"]+)"/.exec(html)![1];
    expect(Buffer.from(png, 'base64')).toEqual(fs.readFileSync(path.join(dir, 'bev.png')));
    expect(html).toContain('<img src="data:image/svg+xml;base64,'); // the training curve
    expect(html).not.toMatch(/http/i);
    expect(html).not.toMatch(/<script|<link|src="(?!data:)/);
    // The table, with its alignment, escaped pipes and bold cell.
    expect(html).toContain('<th>method</th>');
    expect(html).toContain('<th style="text-align:right">DTC |err| mean (m)</th>');
    expect(html).toContain('<td><strong>shipped model</strong></td><td style="text-align:right">77.0</td>');
    expect(html).toContain('<pre><code>agents   collision  off-road\nidm      0.0 %      1.2 %</code></pre>');
    expect(html).toContain('<li>one &lt;point&gt;</li>');
    expect(html).toContain('<code>npx drivekit view ');
    expect(html).toMatch(/<a href="synthetic\/">synthetic<\/a> \(7 frames, synthetic\)/);
    expect(html).toContain('<a href="synthetic.mcap">synthetic.mcap</a> for Foxglove Studio');
    expect(html).toContain('<a href="#self-trained-detector">');

    await expectOneLineFailure(['report', dir], /report\.html.*--force/);
  });

  it('writes elsewhere with out, and refuses a folder without report.md in one line', () => {
    const dir = path.join(tmp, 'run2');
    makeRun(dir);
    const out = path.join(tmp, 'elsewhere.html');
    expect(writeHtmlReport(dir, { out }).file).toBe(out);
    expect(fs.existsSync(path.join(dir, 'report.html'))).toBe(false);
    fs.mkdirSync(path.join(tmp, 'empty'));
    expect(() => writeHtmlReport(path.join(tmp, 'empty'))).toThrow(InputError);
    expect(() => writeHtmlReport(path.join(tmp, 'empty'))).toThrow(/no report\.md/);
  });

  it('renders code spans literally and drops remote images', () => {
    const r = renderMarkdown('a `**x** | y` b\n\n![remote](https://example.org/x.png)', {
      image: (src) => (src.startsWith('https:') ? null : src),
    });
    expect(r.html).toContain('<code>**x** | y</code>');
    expect(r.html).toContain('<span class="missing">[remote]</span>');
    expect(r.html).not.toContain('<img');
  });
});
