// The console's HTTP application: security headers, sign-in, the pages and their actions.
import { Hono } from 'hono';
import { secureHeaders } from 'hono/secure-headers';
import { describeError, JobsError } from '../shared/errors';
import { assetRoutes } from './assets';
import { authenticate } from './auth';
import { canaryRoutes } from './canary';
import type { ConsoleDeps, ConsoleEnv } from './context';
import { deadLetterActionRoutes } from './dead-letter-actions';
import { deadLetterEntryRoutes } from './dead-letter-entry';
import { deadLetterGroupRoutes } from './dead-letter-group';
import { deadLetterGroupsRoutes } from './dead-letter-groups';
import { jobPageRoutes } from './job-page';
import { jobsListRoutes } from './jobs-list';
import { frameOf } from './frame';
import { hostGuard } from './hosts';
import { notice, page } from './layout';
import { loginRoutes } from './login';
import { overviewRoutes } from './overview';
import { breakerRoutes } from './breakers';
import { redrivePreviewRoutes } from './redrive-preview-page';
import { scheduleRoutes } from './schedules-page';
import { SessionSigner } from './session';
import { taskRoutes } from './tasks';

/** Builds the console's Hono app over its dependencies; {@link startConsole} serves it. */
export function createConsoleApp(deps: ConsoleDeps): Hono<ConsoleEnv> {
  const app = new Hono<ConsoleEnv>();
  const signer = new SessionSigner(deps.config.sessionSecret);
  app.use(
    secureHeaders({
      contentSecurityPolicy: {
        defaultSrc: ["'none'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
      },
      referrerPolicy: 'same-origin',
    }),
  );
  app.use(hostGuard(deps.config));
  app.use(async (c, next) => {
    await next();
    c.header('cache-control', c.res.headers.get('cache-control') ?? 'no-store');
  });
  app.route('/', assetRoutes());
  app.get('/healthz', (c) => c.text('ok'));
  app.use(authenticate(deps.config, signer));
  app.route('/', loginRoutes(deps.config, signer));
  app.route('/', overviewRoutes(deps));
  app.route('/', breakerRoutes(deps));
  app.route('/', jobsListRoutes(deps));
  app.route('/', jobPageRoutes(deps));
  app.route('/', scheduleRoutes(deps));
  app.route('/', deadLetterGroupsRoutes(deps));
  app.route('/', deadLetterEntryRoutes(deps));
  app.route('/', redrivePreviewRoutes(deps));
  app.route('/', canaryRoutes(deps));
  app.route('/', deadLetterActionRoutes(deps));
  app.route('/', deadLetterGroupRoutes(deps));
  app.route('/', taskRoutes(deps));
  app.onError((err, c) => {
    const status = err instanceof JobsError && /not-found/.test(err.type) ? 404 : err instanceof JobsError ? 400 : 500;
    // A page shows the error in its frame (escaped, like everything else); anything else gets text.
    if (c.req.method === 'GET' && c.req.header('hx-request') === undefined && c.get('session')) {
      return c.html(page(frameOf(c, status === 500 ? 'Something went wrong' : 'This cannot be shown', 'overview'), notice('error', describeError(err))), status);
    }
    return c.text(describeError(err), status);
  });
  return app;
}
