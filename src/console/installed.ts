// Imported first by the console's entry point: the console's packages (hono, its Node server,
// htmx and uPlot) are optional peer dependencies, and a project without them gets one line naming
// them and the command that installs them, not a stack trace from deep inside a page module.
import { requirePart } from '../shared/optional-packages';

requirePart('console');
