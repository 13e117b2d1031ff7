import type { Config } from '../shared/config';
import { provisionJaeger } from './jaeger';
import type { ProvisionLog } from './routes';
import { provisionTemporalCli } from './temporal-cli';
import { provisionTemporalServer, provisionTemporalUi } from './temporal-server';
import { createTimeSkippingEnv } from './test-server';

/** What `npm run provision` can provision, each on its own (the test lanes name what they need). */
export const provisionPartNames = ['cli', 'test-server', 'server', 'ui', 'jaeger'] as const;

/** One provisionable part: the dev server's CLI, the time-skipping server, the cluster's server (with schema tool and schema), its UI server, Jaeger. */
export type ProvisionPart = (typeof provisionPartNames)[number];

/** A part name on the command line that is not one of {@link provisionPartNames}. */
export class UnknownPartError extends Error {
  constructor(readonly part: string) {
    super(`provision: unknown part '${part}' (the parts are ${provisionPartNames.join(', ')}; none names them all)`);
    this.name = 'UnknownPartError';
  }
}

/** The parts named on the command line, in the order of {@link provisionPartNames}; none named means all of them. */
export function parseParts(args: string[]): ProvisionPart[] {
  for (const arg of args) if (!(provisionPartNames as readonly string[]).includes(arg)) throw new UnknownPartError(arg);
  return args.length === 0 ? [...provisionPartNames] : provisionPartNames.filter((part) => args.includes(part));
}

type PartOptions = Config & { log: ProvisionLog };

const provisioners: Record<ProvisionPart, (options: PartOptions) => Promise<string>> = {
  cli: async (options) => {
    const cli = await provisionTemporalCli(options);
    return `temporal CLI: ${cli.value} (via ${cli.route})`;
  },
  'test-server': async (options) => {
    const env = await createTimeSkippingEnv(options);
    await env.value.teardown();
    return `time-skipping test server: started (via ${env.route})`;
  },
  server: async (options) => {
    const server = await provisionTemporalServer(options);
    return `Temporal server, schema tool and schema: ${server.value.server}, ${server.value.sqlTool}, ${server.value.schemaDir} (via ${server.route})`;
  },
  ui: async (options) => {
    const ui = await provisionTemporalUi(options);
    return `Temporal UI server: ${ui.value.uiServer} (via ${ui.route})`;
  },
  jaeger: async (options) => {
    const jaeger = await provisionJaeger(options);
    return `Jaeger: ${jaeger.value} (via ${jaeger.route})`;
  },
};

/** A part that could not be provisioned, and why. */
export interface PartFailure {
  part: ProvisionPart;
  error: unknown;
}

/**
 * Provisions `parts` side by side and reports each one's line as it is ready; a part that fails
 * does not stop the others (their builds are kept in the cache), and is returned with its error.
 */
export async function provisionParts(parts: ProvisionPart[], options: PartOptions, report: (line: string) => void): Promise<PartFailure[]> {
  const outcomes = await Promise.all(
    parts.map(async (part): Promise<PartFailure | undefined> => {
      try {
        report(await provisioners[part](options));
        return undefined;
      } catch (error) {
        return { part, error };
      }
    }),
  );
  return outcomes.filter((outcome): outcome is PartFailure => outcome !== undefined);
}
