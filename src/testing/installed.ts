// Imported first by the test kit's entry point: @temporalio/testing is an optional peer dependency
// (a team installs it with its dev dependencies), and a project without it gets one line naming it
// and the command that installs it.
import { requirePart } from '../shared/optional-packages';

requirePart('testKit');
