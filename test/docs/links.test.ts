import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * Every relative link in the repository's Markdown leads to a file of the repository, and
 * every anchor to a heading of its page (GitHub's heading ids). Links to other sites are
 * not followed: tests run offline.
 */

const ROOT = path.join(__dirname, '..', '..');
const SKIPPED_DIRS = new Set(['node_modules', '.git', 'cdk.out', '.data', 'coverage', 'dist', 'test-output']);

/** The Markdown files git tracks or would track (new ones included), or a walk of the tree without git. */
function markdownFiles(): string[] {
  try {
    const listed = execFileSync(
      'git',
      ['ls-files', '-z', '--cached', '--others', '--exclude-standard', '--', '*.md'],
      { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] },
    );
    return listed
      .split('\0')
      .filter((file) => file !== '' && !file.split('/').includes('node_modules'))
      .filter((file) => existsSync(path.join(ROOT, file)))
      .sort();
  } catch {
    const found: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
        const relative = path.posix.join(dir, entry.name);
        if (entry.isDirectory() && !SKIPPED_DIRS.has(entry.name)) walk(relative);
        else if (entry.isFile() && entry.name.endsWith('.md')) found.push(relative);
      }
    };
    walk('');
    return found.sort();
  }
}

/** The lines of a Markdown text outside fenced code blocks, with inline code spans blanked out. */
function proseLines(text: string): { line: string; number: number }[] {
  const lines: { line: string; number: number }[] = [];
  let fence: string | undefined;
  text.split('\n').forEach((line, index) => {
    const opening = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence) {
      if (opening && opening[0] === fence[0] && opening.length >= fence.length) fence = undefined;
      return;
    }
    if (opening) {
      fence = opening;
      return;
    }
    lines.push({ line: line.replace(/(`+)[^`]*?\1/g, (span) => ' '.repeat(span.length)), number: index + 1 });
  });
  return lines;
}

/** GitHub's id for a heading: lower case, punctuation dropped, spaces to hyphens. */
function headingSlug(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}

/** The ids of a page's headings, numbered like GitHub's when repeated (`x`, `x-1`, …). */
function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { line } of proseLinesKeepingCode(text)) {
    const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const slug = headingSlug(heading.replace(/`/g, ''));
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  for (const [, id] of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(id as string);
  return anchors;
}

/** Like proseLines, but keeps code spans (a heading's text includes them). */
function proseLinesKeepingCode(text: string): { line: string }[] {
  const numbers = new Set(proseLines(text).map(({ number }) => number));
  return text
    .split('\n')
    .filter((_, index) => numbers.has(index + 1))
    .map((line) => ({ line }));
}

interface Link {
  readonly file: string;
  readonly line: number;
  readonly target: string;
}

function linksOf(file: string, text: string): Link[] {
  const links: Link[] = [];
  for (const { line, number } of proseLines(text)) {
    for (const match of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      links.push({ file, line: number, target: match[1] as string });
    }
    const definition = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/.exec(line);
    if (definition) links.push({ file, line: number, target: definition[1] as string });
  }
  return links;
}

/** Why a link is broken, or undefined when it leads somewhere. */
function problemOf(link: Link, texts: Map<string, string>): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(link.target)) return undefined;
  const hash = link.target.indexOf('#');
  const pathPart = decodeURIComponent(hash < 0 ? link.target : link.target.slice(0, hash));
  const anchor = hash < 0 ? undefined : decodeURIComponent(link.target.slice(hash + 1));
  const resolved =
    pathPart === ''
      ? link.file
      : path.posix.normalize(path.posix.join(path.posix.dirname(link.file), pathPart));
  if (resolved.startsWith('../') || resolved === '..' || path.posix.isAbsolute(resolved)) {
    return 'leads outside the repository';
  }
  const absolute = path.join(ROOT, resolved);
  if (!existsSync(absolute)) return `${resolved} does not exist`;
  if (anchor === undefined || anchor === '') return undefined;
  if (!resolved.endsWith('.md') || statSync(absolute).isDirectory())
    return `#${anchor} on a file that is not Markdown`;
  const text = texts.get(resolved) ?? readFileSync(absolute, 'utf8');
  return anchorsOf(text).has(anchor) ? undefined : `${resolved} has no heading #${anchor}`;
}

describe('Markdown links', () => {
  const files = markdownFiles();
  const texts = new Map(files.map((file) => [file, readFileSync(path.join(ROOT, file), 'utf8')]));

  it('finds the README and the pages of doc/', () => {
    expect(files).toContain('README.md');
    expect(files.filter((file) => file.startsWith('doc/')).length).toBeGreaterThan(0);
  });

  it('every relative link and anchor leads somewhere inside the repository', () => {
    const broken = files
      .flatMap((file) => linksOf(file, texts.get(file) as string))
      .map((link) => ({ link, problem: problemOf(link, texts) }))
      .filter(({ problem }) => problem !== undefined)
      .map(({ link, problem }) => `${link.file}:${link.line}: (${link.target}) ${problem}`);
    expect(broken).toEqual([]);
  });

  it('makes heading ids the way GitHub does', () => {
    expect(headingSlug('On 429, and bans')).toBe('on-429-and-bans');
    expect(headingSlug('For platform engineers: the configuration')).toBe(
      'for-platform-engineers-the-configuration',
    );
    expect(headingSlug('The `domains` tool (step 2)')).toBe('the-domains-tool-step-2');
    expect(headingSlug('snake_case and Ünïcode')).toBe('snake_case-and-ünïcode');
    expect(anchorsOf('# A\n## A\n```\n# not a heading\n```\n### A')).toEqual(new Set(['a', 'a-1', 'a-2']));
  });

  it('reports a link that leaves the repository, a missing file and a missing heading', () => {
    const text =
      '[spec](../shared/spec.md) [gone](doc/nope.md) [anchor](README.md#no-such-heading) `[code](x.md)`';
    const problems = linksOf('README.md', text).map((link) => problemOf(link, texts));
    expect(problems).toEqual([
      'leads outside the repository',
      'doc/nope.md does not exist',
      'README.md has no heading #no-such-heading',
    ]);
  });
});
