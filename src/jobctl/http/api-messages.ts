// Temporal's HTTP API answers in proto3 JSON. This turns an answer into the message objects the
// gRPC client decodes (Long int64s, enum numbers, Buffer bytes, {seconds, nanos} times, proto3
// defaults on each message's prototype), so the job record code reads both alike. It walks the
// message definitions of api-subset.json (the few calls jobctl makes over HTTP) as it reads: no
// protobufjs reflection, whose set-up of those types took a command 50–100 ms (docs/performance.md).
import Long from 'long';
import apiSubset from './api-subset.json';
import { HttpApiUnavailable } from './http-api';

/** A field as api-subset.json (protobufjs's JSON form) describes it. */
interface FieldJson {
  type: string;
  id: number;
  rule?: 'repeated';
  keyType?: string;
}

interface NamespaceJson {
  nested?: Record<string, NamespaceJson & { fields?: Record<string, FieldJson>; values?: Record<string, number> }>;
}

/** A message type: its fields, and the prototype that carries their proto3 defaults. */
interface MessageType {
  kind: 'message';
  name: string;
  fullName: string;
  fields: Record<string, FieldJson>;
  defaults?: object;
  /** Its fields' message and enum types by field name, resolved on first use. */
  fieldTypes?: Map<string, MessageType | EnumType | undefined>;
}

interface EnumType {
  kind: 'enum';
  values: Record<string, number>;
}

let types: Map<string, MessageType | EnumType> | undefined;

/** Every message and enum of the subset by its full name (`temporal.api.common.v1.Payload`). */
function allTypes(): Map<string, MessageType | EnumType> {
  if (types) return types;
  types = new Map();
  const walk = (namespace: NamespaceJson, prefix: string) => {
    for (const [name, nested] of Object.entries(namespace.nested ?? {})) {
      const fullName = prefix ? `${prefix}.${name}` : name;
      if (nested.fields) types!.set(fullName, { kind: 'message', name, fullName, fields: nested.fields });
      else if (nested.values) types!.set(fullName, { kind: 'enum', values: nested.values });
      walk(nested, fullName);
    }
  };
  walk(apiSubset as NamespaceJson, '');
  return types;
}

/** The type a field of `scope` names, resolved as protobuf resolves names: innermost scope first. */
function resolve(scope: string, name: string): MessageType | EnumType | undefined {
  const all = allTypes();
  for (let at = scope; ; at = at.slice(0, Math.max(at.lastIndexOf('.'), 0))) {
    const found = all.get(at ? `${at}.${name}` : name);
    if (found || !at) return found;
  }
}

/** The message or enum type of `message`'s field `name`, resolved once per field. */
function fieldType(message: MessageType, name: string, field: FieldJson): MessageType | EnumType | undefined {
  message.fieldTypes ??= new Map();
  if (!message.fieldTypes.has(name)) message.fieldTypes.set(name, resolve(message.fullName, field.type));
  return message.fieldTypes.get(name);
}

const longTypes = new Set(['int64', 'sint64', 'sfixed64', 'uint64', 'fixed64']);
const unsignedLongTypes = new Set(['uint64', 'fixed64']);

/** proto3's default of a field, as protobufjs puts it on a message's prototype. */
function defaultOf(message: MessageType, name: string, field: FieldJson): unknown {
  if (field.keyType) return Object.freeze({});
  if (field.rule === 'repeated' || field.type === 'bytes') return Object.freeze([]);
  if (longTypes.has(field.type)) return unsignedLongTypes.has(field.type) ? Long.UZERO : Long.ZERO;
  if (field.type === 'string') return '';
  if (field.type === 'bool') return false;
  if (/^(u?int32|s?fixed32|sint32|double|float)$/.test(field.type)) return 0;
  const type = fieldType(message, name, field);
  return type?.kind === 'enum' ? (Object.values(type.values)[0] ?? 0) : null;
}

/** A new message of `type`, its unset fields reading as their defaults. */
function newMessage(type: MessageType): Record<string, unknown> {
  type.defaults ??= Object.fromEntries(Object.entries(type.fields).map(([name, field]) => [name, defaultOf(type, name, field)]));
  return Object.create(type.defaults) as Record<string, unknown>;
}

/** The `{seconds, nanos}` of an RFC 3339 time (`2026-12-02T17:16:29.374717533Z`), to the nanosecond. */
function timestamp(text: string): { seconds: Long; nanos: number } {
  const match = /^(.*?)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)$/.exec(text);
  const ms = match ? Date.parse(`${match[1]}${match[3]}`) : Number.NaN;
  if (!match || Number.isNaN(ms)) throw new TypeError(`not an RFC 3339 time: ${JSON.stringify(text)}`);
  return { seconds: Long.fromNumber(Math.floor(ms / 1000)), nanos: Number((match[2] ?? '').padEnd(9, '0')) };
}

/** The `{seconds, nanos}` of a proto3 JSON duration (`10s`, `-1.5s`). */
function duration(text: string): { seconds: Long; nanos: number } {
  const match = /^(-?)(\d+)(?:\.(\d{1,9}))?s$/.exec(text);
  if (!match) throw new TypeError(`not a protobuf duration: ${JSON.stringify(text)}`);
  const sign = match[1] === '-' ? -1 : 1;
  const nanos = Number((match[3] ?? '').padEnd(9, '0'));
  return { seconds: Long.fromString(`${match[1]}${match[2]}`), nanos: sign * nanos };
}

/** The well-known types whose proto3 JSON form is a string. */
const wellKnown: Record<string, (text: string) => object> = {
  'google.protobuf.Timestamp': timestamp,
  'google.protobuf.Duration': duration,
};

/** One value of `field` (of `message`), as protobufjs's `fromObject` reads it. */
function value(message: MessageType, name: string, field: FieldJson, json: unknown): unknown {
  if (longTypes.has(field.type)) {
    const long = typeof json === 'string' ? Long.fromString(json) : Long.fromValue(json as number);
    return unsignedLongTypes.has(field.type) ? long.toUnsigned() : long.toSigned();
  }
  switch (field.type) {
    case 'string':
      return String(json);
    case 'bool':
      return Boolean(json);
    case 'bytes':
      return typeof json === 'string' ? Buffer.from(json, 'base64') : json;
    case 'double':
    case 'float':
      return Number(json);
    case 'uint32':
    case 'fixed32':
      return Number(json) >>> 0;
    case 'int32':
    case 'sint32':
    case 'sfixed32':
      return Number(json) | 0;
  }
  const type = fieldType(message, name, field);
  if (!type) throw new TypeError(`${message.name}.${name}: no type ${field.type} in the API subset`);
  if (type.kind === 'enum') return typeof json === 'number' ? json : type.values[String(json)];
  if (typeof json === 'string' && wellKnown[type.fullName]) return Object.assign(newMessage(type), wellKnown[type.fullName]!(json));
  return read(type, json);
}

/** A message of `type` from its proto3 JSON. */
function read(type: MessageType, json: unknown): Record<string, unknown> {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new TypeError(`${type.name}: object expected`);
  const message = newMessage(type);
  for (const [name, raw] of Object.entries(json)) {
    const field = type.fields[name];
    if (!field || raw === null) continue;
    if (field.keyType) {
      if (typeof raw !== 'object') throw new TypeError(`${type.name}.${name}: object expected`);
      message[name] = Object.fromEntries(Object.entries(raw as Record<string, unknown>).map(([key, v]) => [key, value(type, name, field, v)]));
    } else if (field.rule === 'repeated') {
      if (!Array.isArray(raw)) throw new TypeError(`${type.name}.${name}: array expected`);
      message[name] = raw.map((v: unknown) => value(type, name, field, v));
    } else {
      const converted = value(type, name, field, raw);
      if (converted !== undefined) message[name] = converted;
    }
  }
  return message;
}

/** A proto3 JSON answer as the message `typeName` (e.g. `temporal.api.workflowservice.v1.DescribeWorkflowExecutionResponse`). */
export function fromJson<T>(typeName: string, json: unknown): T {
  const type = allTypes().get(typeName);
  if (type?.kind !== 'message') throw new Error(`no message ${typeName} in the API subset`);
  try {
    return read(type, json) as T;
  } catch (err) {
    // A form this reader does not know (a newer server's?): the read goes to gRPC instead.
    throw new HttpApiUnavailable(`cannot read the server's ${type.name}: ${err instanceof Error ? err.message : String(err)}`);
  }
}
