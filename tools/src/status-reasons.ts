// The API status reason of an HTTP status code, as the Kubernetes API server names it in a
// Status (`metav1.StatusReason`): the one table for the operator (an error without a
// Status body) and the dev-server (the Status it answers with).

const REASONS: Record<number, string> = {
  400: "BadRequest",
  401: "Unauthorized",
  403: "Forbidden",
  404: "NotFound",
  405: "MethodNotAllowed",
  409: "Conflict",
  410: "Expired",
  415: "UnsupportedMediaType",
  422: "Invalid",
  429: "TooManyRequests",
  500: "InternalError",
  503: "ServiceUnavailable",
  504: "Timeout",
};

/** The status reason of HTTP status `code`; `Unknown` for a code without one. */
export function reasonForCode(code: number): string {
  return REASONS[code] ?? "Unknown";
}
