import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

// Every relative link in README.md, CONTRIBUTING.md and docs/**/*.md resolves: the file exists, and
// an #anchor names a heading of it as GitHub slugs headings. No network: web links are not followed.
const repoRoot = path.resolve(__dirname, '../..');

/** The Markdown files whose links are checked, relative to the repository root. */
function markdownFiles(): string[] {
  const docs = (readdirSync(path.join(repoRoot, 'docs'), { recursive: true }) as string[])
    .filter((file) => file.endsWith('.md'))
    .map((file) => `docs/${file.split(path.sep).join('/')}`);
  return ['README.md', 'CONTRIBUTING.md', ...docs.sort()];
}

/** The text outside fenced code blocks and code spans, where links are links. */
function prose(markdown: string): string {
  return markdown
    .replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '')
    .replace(/(`+)[\s\S]*?\1/g, (span) => (span.includes('\n\n') ? span : ''));
}

/** GitHub's slug of a heading's text (as github-slugger does it): lower case, punctuation dropped, spaces to hyphens. */
export function githubSlug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // a link: its text
    .replace(/<[^>]+>/g, '') // inline HTML
    .replace(/[*_]{1,3}([^*_]+)[*_]{1,3}/g, '$1') // emphasis
    .replace(/`/g, '');
  return text.toLowerCase().trim().replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '').replace(/ /g, '-');
}

/** The anchors of a Markdown file's headings, a repeated one with -1, -2, … as GitHub numbers them. */
function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  const withoutFences = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const m of withoutFences.matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
    const slug = githubSlug(m[1]!);
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

describe('the docs\' links', () => {
  it('slugs headings as GitHub does', () => {
    assert.equal(githubSlug('A real cluster on this machine: `npm run cluster`'), 'a-real-cluster-on-this-machine-npm-run-cluster');
    assert.equal(githubSlug('Enqueue over the HTTP API, and answers decoded without protobufjs (2026-12-03, issue 19 §3)'), 'enqueue-over-the-http-api-and-answers-decoded-without-protobufjs-2026-12-03-issue-19-3');
    assert.equal(githubSlug("A user's job — with a [link](x.md)"), 'a-users-job--with-a-link');
    assert.deepEqual([...anchorsOf('# Notes\n\n```sh\n# not a heading\n```\n## Notes\n')], ['notes', 'notes-1']);
  });

  it('resolve, each to a file that exists and, with an #anchor, to a heading of it', () => {
    const broken: string[] = [];
    const anchorCache = new Map<string, Set<string>>();
    const anchors = (file: string) => {
      let found = anchorCache.get(file);
      if (!found) anchorCache.set(file, (found = anchorsOf(readFileSync(file, 'utf8'))));
      return found;
    };
    for (const file of markdownFiles()) {
      const absolute = path.join(repoRoot, file);
      const text = prose(readFileSync(absolute, 'utf8'));
      for (const m of text.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
        const target = m[1]!;
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
        const [pathPart, anchor] = target.split('#', 2) as [string, string | undefined];
        const resolved = pathPart === '' ? absolute : path.resolve(path.dirname(absolute), decodeURIComponent(pathPart));
        if (!resolved.startsWith(repoRoot) || !existsSync(resolved)) {
          broken.push(`${file}: ${target} (no such file)`);
          continue;
        }
        if (anchor === undefined) continue;
        if (!statSync(resolved).isFile() || !resolved.endsWith('.md')) {
          broken.push(`${file}: ${target} (an anchor into a file that is not Markdown)`);
          continue;
        }
        if (!anchors(resolved).has(decodeURIComponent(anchor).toLowerCase())) broken.push(`${file}: ${target} (no such heading)`);
      }
    }
    assert.deepEqual(broken, [], 'broken links');
  });

  it('include a layout in CONTRIBUTING.md that names every folder of src/, and only those', () => {
    const contributing = readFileSync(path.join(repoRoot, 'CONTRIBUTING.md'), 'utf8');
    const layout = /^## Layout\n([\s\S]*?)(?=^## )/m.exec(contributing)?.[1] ?? '';
    const listed = [...layout.matchAll(/^\| `src\/([^/`]+)\/` \|/gm)].map((m) => m[1]!).sort();
    const folders = readdirSync(path.join(repoRoot, 'src'), { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort();
    assert.deepEqual(listed, folders, 'the folders of src/ in CONTRIBUTING.md\'s Layout table');
  });
});
