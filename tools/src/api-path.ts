// Kubernetes API paths as kube-apiserver's RequestInfo resolves them, for the operator's
// permission reports and the dev server's routing and authorizer alike.

/** `/api/v1/…` or `/apis/<group>/<version>/…`, the namespace taken out of the rest. */
export interface ApiPath {
  group: string;
  version: string;
  namespace?: string;
  /** What follows: resource, name, subresource. */
  rest: string[];
}

/** Splits a URL path; `undefined` for a path outside the resource API. */
export function splitApiPath(pathname: string): ApiPath | undefined {
  const parts = pathname.split("/").filter((p) => p !== "").map(decodeURIComponent);
  let group: string;
  let version: string;
  let rest: string[];
  if (parts[0] === "api" && parts.length >= 3) {
    group = "";
    version = parts[1] as string;
    rest = parts.slice(2);
  } else if (parts[0] === "apis" && parts.length >= 4) {
    group = parts[1] as string;
    version = parts[2] as string;
    rest = parts.slice(3);
  } else return undefined;
  let namespace: string | undefined;
  if (rest[0] === "namespaces" && rest.length >= 3) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  return namespace === undefined ? { group, version, rest } : { group, version, namespace, rest };
}

/** What a request does, as the API server's authorizer sees it. */
export interface RequestAttributes {
  verb: string;
  group: string;
  resource: string;
  subresource?: string;
  namespace?: string;
  name?: string;
}
