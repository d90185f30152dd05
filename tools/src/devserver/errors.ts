// The fake API server's error answers: an HttpError thrown anywhere while a request is
// handled (routing, admission, the store) becomes kube-apiserver's Status body.

import { reasonFor } from "./faults.js";

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly reason = reasonFor(status),
    readonly details?: object,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** A `Status` of kind Failure, as kube-apiserver answers an error. */
export function statusBody(status: number, message: string, reason: string, details?: object): object {
  return { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason, ...(details ? { details } : {}), code: status };
}
