import { defineCatalog } from '../../src/catalog';
import { greetJob } from './greet';
import { greetPayload } from './greet.payload';

/** The bench's user-defined catalog: one job type, as a team's `src/catalog.ts` would hold it. */
export const catalog = defineCatalog({ jobs: [greetJob], payloads: { greet: greetPayload } });
