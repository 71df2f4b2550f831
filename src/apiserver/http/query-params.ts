// Query parameters read the way kube-apiserver reads them. Booleans follow apimachinery's
// Convert_Slice_string_To_bool (pkg/runtime/conversion.go): absent is false; the first value is
// false only when it is "0" or "false" in any case; anything else — "True", "1", "yes", even an
// empty value (`?watch=`) — is true. Optional booleans (*bool options such as sendInitialEvents)
// are unset when absent. `pretty` is the exception: kube reads it with strconv.ParseBool.

/** A boolean option (`watch`, `allowWatchBookmarks`, `orphanDependents`, ...). */
export function queryBool(query: URLSearchParams, name: string): boolean {
  return queryOptionalBool(query, name) ?? false;
}

/** A *bool option: undefined when absent, else parsed as queryBool does. */
export function queryOptionalBool(query: URLSearchParams, name: string): boolean | undefined {
  const value = query.get(name);
  if (value === null) return undefined;
  return !(value === '0' || value.toLowerCase() === 'false');
}

/** Go's strconv.ParseBool; undefined for anything it rejects. */
export function parseGoBool(value: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false;
  return undefined;
}

/**
 * Whether kube indents its JSON answer (apiserver's negotiation.isPrettyPrint): a non-empty `pretty`
 * parameter decides by strconv.ParseBool (unparseable is false); otherwise browsers and command-line
 * HTTP tools (User-Agent starting with curl, Wget or Mozilla/5.0) get indented output.
 */
export function prettyPrintRequested(query: URLSearchParams, userAgent: string | undefined): boolean {
  const pretty = query.get('pretty');
  if (pretty !== null && pretty !== '') return parseGoBool(pretty) ?? false;
  const agent = userAgent ?? '';
  return agent.startsWith('curl') || agent.startsWith('Wget') || agent.startsWith('Mozilla/5.0');
}
