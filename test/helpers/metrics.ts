/** A scraped Prometheus text exposition: each sample name with the label names its series carry. */
export type Scrape = Map<string, Set<string>>;

/** Fetches `/metrics` and parses the sample names and label names (not the values). */
export async function scrapeMetrics(url: string): Promise<Scrape> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`GET ${url}: ${response.status}`);
  return parseExposition(await response.text());
}

/** Parses Prometheus text exposition lines into sample names and their label names. */
export function parseExposition(text: string): Scrape {
  const samples: Scrape = new Map();
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s/.exec(line);
    if (!match) continue;
    const labels = samples.get(match[1]!) ?? new Set<string>();
    for (const label of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="/g)) labels.add(label[1]!);
    samples.set(match[1]!, labels);
  }
  return samples;
}

/** Merges scrapes of several workers. */
export function mergeScrapes(...scrapes: Scrape[]): Scrape {
  const merged: Scrape = new Map();
  for (const scrape of scrapes) for (const [name, labels] of scrape) merged.set(name, new Set([...(merged.get(name) ?? []), ...labels]));
  return merged;
}

/** Sample names a PromQL expression reads: ours (`jobs_`) and the SDK's (`temporal_`). */
export function metricNames(expr: string): string[] {
  return [...new Set([...expr.matchAll(/\b(?:jobs|temporal)_[a-z0-9_]+\b/g)].map((m) => m[0]))];
}

/** Label names a PromQL expression groups or filters by (`by (…)`, `{label="…"}`), `le` aside. */
export function labelNames(expr: string): string[] {
  const names = new Set<string>();
  for (const by of expr.matchAll(/\bby \(([^)]*)\)/g)) for (const n of by[1]!.split(',')) names.add(n.trim());
  for (const matcher of expr.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!=|!~|=)\s*"/g)) names.add(matcher[1]!);
  names.delete('le');
  names.delete('');
  return [...names];
}
