// `npx tsx bench/profile-summary.ts FILE.cpuprofile [--top N] [--per N]`: where a V8 CPU profile
// (`npm run bench -- --profile DIR` writes one per worker thread) spends its time, as self time
// grouped by where the code lives (a package, one of our files, Node's internals, the garbage
// collector), in ms and, with --per, in µs per job. See docs/performance.md.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const usage = 'npx tsx bench/profile-summary.ts FILE.cpuprofile... [--top N] [--per JOBS]';

/** Where a frame's code lives: a package, our file, Node, or one of V8's pseudo-frames. */
export function placeOf(frame: ProfileNode['callFrame']): string {
  const { url, functionName } = frame;
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const pkg = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
  if (pkg?.[1]) return pkg[1];
  if (url.startsWith('node:')) return 'node:internals';
  const ours = url.match(/(?:^|\/)(src|dist|bench)\/(.+?)(?:\.[cm]?[jt]s)?$/);
  if (ours) return `${ours[1] === 'dist' ? 'src' : ours[1]}/${ours[2]}`;
  // The SDK's workflow bundle is evaluated from a generated name; its frames are the bundle's.
  return url.includes('workflow') ? '(workflow bundle)' : url;
}

/** Self time in ms per place, largest first, and the profile's whole span. */
export function selfTimeByPlace(profile: CpuProfile): { span: number; places: [string, number][] } {
  const place = new Map(profile.nodes.map((n) => [n.id, placeOf(n.callFrame)]));
  const totals = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const key = place.get(id) ?? '(unknown)';
    totals.set(key, (totals.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  const places = [...totals].sort((a, b) => b[1] - a[1]);
  return { span: (profile.endTime - profile.startTime) / 1000, places };
}

function main(): void {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: 'string' }, per: { type: 'string' } } });
  if (positionals.length === 0) throw new Error(`no profile given: ${usage}`);
  const top = Number(values.top ?? 15);
  const per = values.per === undefined ? undefined : Number(values.per);
  for (const file of positionals) {
    const { span, places } = selfTimeByPlace(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile);
    const busy = places.filter(([p]) => p !== '(idle)' && p !== '(program)').reduce((sum, [, ms]) => sum + ms, 0);
    console.log(`${file}: ${span.toFixed(0)} ms sampled, ${busy.toFixed(0)} ms busy${per ? ` (${((busy * 1000) / per).toFixed(0)} µs/job)` : ''}`);
    for (const [p, ms] of places.slice(0, top)) {
      console.log(`  ${ms.toFixed(0).padStart(7)} ms${per ? ` ${((ms * 1000) / per).toFixed(0).padStart(6)} µs/job` : ''}  ${p}`);
    }
  }
}

if (require.main === module) main();
