// A failed zod parse as the library reports it: field issues under a root path, each bounded.
import type { FieldIssue } from './errors';

/** Longest path or message of one reported issue, in characters: a caller's 60 KB key is not echoed back whole. */
const maxIssueText = 200;

/** Most issues reported from one parse; the rest are counted. */
const maxIssues = 20;

/** The issues of a failed zod parse, with paths under `root` (e.g. `payload.to`), each bounded in length. */
export function issuesFromZod(error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] }, root: string): FieldIssue[] {
  const issues = error.issues.slice(0, maxIssues).map((issue) => ({ path: clip([root, ...issue.path.map(String)].join('.')), message: clip(issue.message) }));
  const more = error.issues.length - issues.length;
  return more > 0 ? [...issues, { path: root, message: `and ${more} more issue(s)` }] : issues;
}

function clip(text: string): string {
  return text.length > maxIssueText ? `${text.slice(0, maxIssueText)}… (${text.length} characters)` : text;
}
