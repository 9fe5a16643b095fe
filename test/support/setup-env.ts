// The AWS SDK warns that Node 20 is nearing end of support; Lambda runs Node 22.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
// Tests that read the logs or the metrics turn them on themselves.
process.env.POWERTOOLS_LOG_LEVEL ??= 'SILENT';
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
// No test waits on the clock: a local function of a loaded machine (two suites at once) may run
// past Lambda's 10 s, the local default (FUNCTION_TIMEOUT_VARIABLE in local/gateway.ts).
process.env.FUNCTION_TIMEOUT_SECONDS ??= '600';
