// Temporal's HTTP API answers in proto3 JSON. This turns an answer into the message objects the
// gRPC client decodes (Long int64s, enum numbers, Uint8Array bytes, {seconds, nanos} times), so the
// job record code reads both alike. It loads protobufjs's reflection over api-subset.json (the
// messages of the few calls jobctl makes over HTTP), not the SDK's whole API.
import type protobuf from 'protobufjs/light';
import apiSubset from './api-subset.json';
import { HttpApiUnavailable } from './http-api';

let root: protobuf.Root | undefined;

/** protobufjs, loaded with the first answer to decode: an unknown job's 404 never needs it. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const protobufjs = () => require('protobufjs/light') as typeof protobuf;

function lookup(name: string): protobuf.Type {
  root ??= protobufjs().Root.fromJSON(apiSubset as protobuf.INamespace);
  return root.lookupType(name);
}

/** The `{seconds, nanos}` of an RFC 3339 time (`2026-12-02T17:16:29.374717533Z`), to the nanosecond. */
function timestamp(text: string): { seconds: string; nanos: number } {
  const match = /^(.*?)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)$/.exec(text);
  const ms = match ? Date.parse(`${match[1]}${match[3]}`) : Number.NaN;
  if (!match || Number.isNaN(ms)) throw new Error(`not an RFC 3339 time: ${JSON.stringify(text)}`);
  return { seconds: String(Math.floor(ms / 1000)), nanos: Number((match[2] ?? '').padEnd(9, '0')) };
}

/** The `{seconds, nanos}` of a proto3 JSON duration (`10s`, `-1.5s`). */
function duration(text: string): { seconds: string; nanos: number } {
  const match = /^(-?)(\d+)(?:\.(\d{1,9}))?s$/.exec(text);
  if (!match) throw new Error(`not a protobuf duration: ${JSON.stringify(text)}`);
  const sign = match[1] === '-' ? -1 : 1;
  const nanos = Number((match[3] ?? '').padEnd(9, '0'));
  return { seconds: String(sign * Number(match[2])), nanos: sign * nanos };
}

const wellKnown: Record<string, (text: string) => unknown> = {
  '.google.protobuf.Timestamp': timestamp,
  '.google.protobuf.Duration': duration,
};

/** Rewrites, in a copy, the JSON forms protobufjs's `fromObject` does not read: times and durations as strings. */
function normalize(type: protobuf.Type, json: unknown): unknown {
  if (typeof json !== 'object' || json === null) return json;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(json)) {
    const field = type.fields[key];
    const resolved = field?.resolve().resolvedType;
    if (!(resolved instanceof protobufjs().Type) || value === null) {
      out[key] = value;
      continue;
    }
    const convert = (v: unknown) => (typeof v === 'string' && wellKnown[resolved.fullName] ? wellKnown[resolved.fullName]!(v) : normalize(resolved, v));
    if (field!.map) out[key] = Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, convert(v)]));
    else if (field!.repeated && Array.isArray(value)) out[key] = value.map(convert);
    else out[key] = convert(value);
  }
  return out;
}

/** A proto3 JSON answer as the message `typeName` (e.g. `temporal.api.workflowservice.v1.DescribeWorkflowExecutionResponse`). */
export function fromJson<T>(typeName: string, json: unknown): T {
  const type = lookup(typeName);
  try {
    return type.fromObject(normalize(type, json) as Record<string, unknown>) as T;
  } catch (err) {
    // A form this reader does not know (a newer server's?): the read goes to gRPC instead.
    throw new HttpApiUnavailable(`cannot read the server's ${type.name}: ${err instanceof Error ? err.message : String(err)}`);
  }
}
