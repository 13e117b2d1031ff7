/** One span as OTLP/JSON carries it, with its attributes flattened. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: Record<string, unknown>;
  links: { traceId: string; spanId: string }[];
  /**
   * The whole span as received, to search for values that must not be there: its name, attributes,
   * events, links and status, without its timestamps and IDs (digits a payload's number could
   * match by chance, as 4217 does in a nanosecond time).
   */
  raw: string;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}

/** A span in OTLP/JSON. */
export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes?: { key: string; value: OtlpValue }[];
  links?: { traceId: string; spanId: string }[];
}

/** An OTLP/JSON `TracesData` (an export request's body, or a Jaeger v3 query's result). */
export interface OtlpTraces {
  resourceSpans?: { scopeSpans?: { spans?: OtlpSpan[] }[] }[];
}

/** Span fields that hold times and IDs only. */
const notSearched = new Set(['startTimeUnixNano', 'endTimeUnixNano', 'timeUnixNano', 'traceId', 'spanId', 'parentSpanId']);

/** Every span of `traces`, flattened. */
export function spansOf(traces: OtlpTraces): ReceivedSpan[] {
  return (traces.resourceSpans ?? []).flatMap((rs) => (rs.scopeSpans ?? []).flatMap((ss) => (ss.spans ?? []).map(flatten)));
}

function flatten(s: OtlpSpan): ReceivedSpan {
  const attributes: Record<string, unknown> = {};
  for (const { key, value } of s.attributes ?? []) attributes[key] = value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : (value.boolValue ?? value.doubleValue));
  return { traceId: s.traceId, spanId: s.spanId, parentSpanId: s.parentSpanId || undefined, name: s.name, attributes, links: s.links ?? [], raw: JSON.stringify(s, (key, value: unknown) => (notSearched.has(key) ? undefined : value)) };
}
