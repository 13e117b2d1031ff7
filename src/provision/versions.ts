/**
 * The one place the Temporal binaries' versions are pinned. Bump them here only.
 */
export const versions = {
  /**
   * Temporal CLI (dev server and Web UI), built with `go install` when nothing else provides it.
   * Tags from v1.6.0 on carry a `replace` directive that `go install` refuses; v1.5.1 ships
   * server 1.29.1 and UI 2.42.1.
   */
  temporalCli: '1.5.1',
  /** Go module of the Temporal CLI's main package. */
  temporalCliModule: 'github.com/temporalio/cli/cmd/temporal',
  /** Maven coordinates of the Java time-skipping test server. */
  testServer: { group: 'io.temporal', artifact: 'temporal-test-server', version: '1.38.0' },
  /** An slf4j binding, so that the Java test server starts quietly. */
  slf4jNop: { group: 'org.slf4j', artifact: 'slf4j-nop', version: '2.0.17' },
  /** Main class of the Java test server; it takes `<port>` and nothing else. */
  testServerMainClass: 'io.temporal.testserver.TestServer',
} as const;
