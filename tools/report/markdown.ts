// A small Markdown-to-HTML renderer for the reports drivekit writes itself (headings, paragraphs, pipe
// tables with alignment, fenced code, lists, images, inline code, bold, italics and links; CommonMark subset).

/** How the renderer turns an image reference into an `<img>` source (e.g. a data: URI), or null to drop it. */
export type ImageResolver = (src: string, alt: string) => string | null;

export interface MarkdownOptions {
  /** Image sources; default: the reference unchanged. */
  image?: ImageResolver;
  /** Prefix of heading ids (so several documents can share a page). */
  idPrefix?: string;
}

export interface RenderedMarkdown {
  html: string;
  /** The level-2 headings with their ids (a table of contents). */
  sections: { id: string; title: string }[];
}

const ESC: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };
export const escapeHtml = (s: string) => s.replace(/[&<>"]/g, (c) => ESC[c]);

/** A heading's id: lower case, runs of other characters as one dash. */
export function slug(s: string): string {
  return (
    s
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || 'section'
  );
}

/** Inline markup of one line of text: code spans first (their content is literal), then images, links, emphasis. */
function inline(text: string, opts: MarkdownOptions): string {
  const parts = text.split(/(`[^`]*`)/);
  return parts
    .map((p, i) => {
      if (i % 2 === 1) return `<code>${escapeHtml(p.slice(1, -1))}</code>`;
      let s = escapeHtml(p);
      s = s.replace(/!\[([^\]]*)\]\(([^)\s]+)\)/g, (_, alt: string, src: string) => {
        const raw = (x: string) =>
          x
            .replace(/&quot;/g, '"')
            .replace(/&lt;/g, '<')
            .replace(/&gt;/g, '>')
            .replace(/&amp;/g, '&');
        const url = opts.image ? opts.image(raw(src), raw(alt)) : raw(src);
        if (url === null) return `<span class="missing">[${alt}]</span>`;
        return `<img src="${escapeHtml(url)}" alt="${alt}">`;
      });
      s = s.replace(
        /\[([^\]]+)\]\(([^)\s]+)\)/g,
        (_, t: string, href: string) => `<a href="${href}">${t}</a>`,
      );
      s = s.replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>');
      s = s.replace(/(^|[\s(])\*([^*\s][^*]*)\*/g, '$1<em>$2</em>');
      return s;
    })
    .join('');
}

/** The cells of a table row: split on `|` not escaped as `\|`, outer pipes dropped. */
function cells(line: string): string[] {
  let s = line.trim();
  if (s.startsWith('|')) s = s.slice(1);
  if (s.endsWith('|') && !s.endsWith('\\|')) s = s.slice(0, -1);
  const out: string[] = [];
  let cur = '';
  let code = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '\\' && s[i + 1] === '|') {
      cur += '|';
      i++;
    } else if (c === '`') {
      code = !code;
      cur += c;
    } else if (c === '|' && !code) {
      out.push(cur.trim());
      cur = '';
    } else cur += c;
  }
  out.push(cur.trim());
  return out;
}

const isSeparator = (line: string) => /^\s*\|?\s*:?-{1,}:?\s*(\|\s*:?-{1,}:?\s*)*\|?\s*$/.test(line);
const align = (sep: string) => {
  const l = sep.startsWith(':');
  const r = sep.endsWith(':');
  return l && r ? 'center' : r ? 'right' : l ? 'left' : '';
};

/** Render a Markdown document to HTML. */
export function renderMarkdown(md: string, opts: MarkdownOptions = {}): RenderedMarkdown {
  const lines = md.replace(/\r\n?/g, '\n').split('\n');
  const out: string[] = [];
  const sections: RenderedMarkdown['sections'] = [];
  const used = new Set<string>();
  let para: string[] = [];
  const flush = () => {
    if (para.length) out.push(`<p>${para.map((l) => inline(l, opts)).join('\n')}</p>`);
    para = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const fence = /^\s*(```|~~~)(.*)$/.exec(line);
    if (fence) {
      flush();
      const body: string[] = [];
      for (i++; i < lines.length && !lines[i].trim().startsWith(fence[1]); i++) body.push(lines[i]);
      const lang = fence[2].trim();
      out.push(
        `<pre${lang ? ` class="lang-${escapeHtml(lang)}"` : ''}><code>${escapeHtml(body.join('\n'))}</code></pre>`,
      );
      continue;
    }
    const h = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (h) {
      flush();
      const level = h[1].length;
      let id = (opts.idPrefix ?? '') + slug(h[2]);
      for (let k = 2; used.has(id); k++) id = `${(opts.idPrefix ?? '') + slug(h[2])}-${k}`;
      used.add(id);
      if (level === 2) sections.push({ id, title: h[2] });
      out.push(`<h${level} id="${id}">${inline(h[2], opts)}</h${level}>`);
      continue;
    }
    if (
      line.includes('|') &&
      i + 1 < lines.length &&
      isSeparator(lines[i + 1]) &&
      lines[i + 1].includes('-')
    ) {
      flush();
      const head = cells(line);
      const aligns = cells(lines[i + 1]).map(align);
      const td = (tag: string, c: string, k: number) =>
        `<${tag}${aligns[k] ? ` style="text-align:${aligns[k]}"` : ''}>${inline(c, opts)}</${tag}>`;
      const rows: string[] = [];
      for (i += 2; i < lines.length && lines[i].includes('|') && lines[i].trim() !== ''; i++)
        rows.push(
          `<tr>${cells(lines[i])
            .map((c, k) => td('td', c, k))
            .join('')}</tr>`,
        );
      i--;
      out.push(
        `<table><thead><tr>${head.map((c, k) => td('th', c, k)).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table>`,
      );
      continue;
    }
    const li = /^\s*([-*]|\d+\.)\s+(.*)$/.exec(line);
    if (li) {
      flush();
      const ordered = /\d/.test(li[1]);
      const items: string[] = [];
      for (; i < lines.length; i++) {
        const m = /^\s*([-*]|\d+\.)\s+(.*)$/.exec(lines[i]);
        if (m) items.push(m[2]);
        else if (lines[i].trim() !== '' && /^\s{2,}/.test(lines[i]) && items.length)
          items[items.length - 1] += '\n' + lines[i].trim();
        else break;
      }
      i--;
      const tag = ordered ? 'ol' : 'ul';
      out.push(`<${tag}>${items.map((it) => `<li>${inline(it, opts)}</li>`).join('')}</${tag}>`);
      continue;
    }
    if (line.trim() === '') flush();
    else para.push(line);
  }
  flush();
  return { html: out.join('\n'), sections };
}
