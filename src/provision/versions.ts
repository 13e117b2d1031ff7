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
  /**
   * Temporal server of the native cluster (`npm run cluster`), built with `go install`. The same
   * version as docker-compose.yml's server and admin-tools images. Newer than the server inside the
   * CLI above (1.29.1): its new matcher no longer blocks a root partition's backlog (docs/guide/operations.md).
   */
  temporalServer: '1.32.2',
  /**
   * The Go toolchain the server is built with (`GOTOOLCHAIN`): its `go.mod` asks for Go 1.26.10
   * from v1.30 on; the go command fetches this toolchain from the Go module proxy when it is older.
   */
  temporalServerGoToolchain: 'go1.27.3',
  /** Go module of the Temporal server; its `cmd/server` and `cmd/tools/sql` are built, its `schema/` copied. */
  temporalServerModule: 'go.temporal.io/server',
  /** The server's persistence plugin and the schema folder (inside the module) that goes with it. */
  temporalSqlPlugin: 'postgres12',
  temporalSchemaDir: 'schema/postgresql/v12',
  /**
   * Temporal Web UI server of the native cluster: the same version as docker-compose.yml's UI image
   * and the CLI's UI, so both setups show the same UI; it serves server 1.32.2 as well (test/cluster/faults.test.ts).
   */
  temporalUi: '2.42.1',
  /** Go module of the UI server; its `cmd/server` embeds the UI build, its `config/` is the image's config. */
  temporalUiModule: 'github.com/temporalio/ui-server/v2',
  /**
   * Jaeger, the trace backend the tracing test exports to and queries (`npm run jaeger` for a local
   * one): its v2 binary (an OpenTelemetry Collector distribution), which the Go module publishes
   * under v1 tags; v1.76.0 is Jaeger 2.13.0. Built with `go install` on the installed Go.
   */
  jaeger: '1.76.0',
  /** Go module of Jaeger; its `cmd/jaeger` is the v2 all-in-one binary. */
  jaegerModule: 'github.com/jaegertracing/jaeger',
} as const;
