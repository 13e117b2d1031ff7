// Builds src/jobctl/http/api-subset.json: the part of Temporal's API (from @temporalio/proto, the
// SDK's own definitions) that jobctl's HTTP reads decode, so that they load a few hundred message
// types instead of the whole API. `npm run api-subset` writes it; test/jobctl/http-api-subset.test.ts
// fails when the SDK's definitions and the file part.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import protobuf from 'protobufjs/light';
import { temporal } from '@temporalio/proto';
import { httpApiMethods } from '../../src/jobctl/http/api-methods';

/** Where the subset is kept. */
export const apiSubsetPath = path.resolve(__dirname, '../../src/jobctl/http/api-subset.json');

/** The subset's JSON text: every type the methods' requests and responses reach, and nothing else. */
export function buildApiSubset(): string {
  const root = (temporal.api.workflowservice.v1.WorkflowService as unknown as { root: protobuf.Root }).root;
  const service = root.lookupService('temporal.api.workflowservice.v1.WorkflowService');
  const keep = new Set<string>();
  const visit = (t: protobuf.ReflectionObject | null): void => {
    if (!t || keep.has(t.fullName)) return;
    keep.add(t.fullName);
    if (t instanceof protobuf.Type) {
      t.resolveAll();
      for (const field of t.fieldsArray) visit(field.resolvedType);
    }
    // A nested type is kept with the message it is declared in.
    if (t.parent instanceof protobuf.Type) visit(t.parent);
  };
  for (const name of httpApiMethods) {
    const method = service.methods[name];
    if (!method) throw new Error(`WorkflowService has no method ${name}`);
    method.resolve();
    visit(method.resolvedRequestType);
    visit(method.resolvedResponseType);
  }
  const prune = (ns: protobuf.NamespaceBase): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const child of [...ns.nestedArray].sort((a, b) => a.name.localeCompare(b.name))) {
      if (child instanceof protobuf.Type || child instanceof protobuf.Enum) {
        if (keep.has(child.fullName)) out[child.name] = child.toJSON();
      } else if (child instanceof protobuf.Namespace && !(child instanceof protobuf.Service)) {
        const nested = prune(child);
        if (Object.keys(nested).length > 0) out[child.name] = { nested };
      }
    }
    return out;
  };
  return `${JSON.stringify({ nested: prune(root) })}\n`;
}

if (require.main === module) {
  writeFileSync(apiSubsetPath, buildApiSubset());
  console.log(`wrote ${apiSubsetPath}`);
}
