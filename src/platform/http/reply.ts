/** Success bodies wrap results in `data` (spec: "JSON success bodies wrap results in data"). */
export function ok<T>(data: T): { data: T } {
  return { data };
}
