/**
 * The one reader of a received header: its first value (Node gives a repeated header as an
 * array), as text; undefined when absent, empty or not text. Node gives received header names in
 * lower case, so `name` is looked up as given and then in lower case.
 */
export function readHeader(headers: { [name: string]: unknown }, name: string): string | undefined {
	const raw: unknown = headers[name] ?? headers[name.toLowerCase()];
	const value: unknown = Array.isArray(raw) ? raw[0] : raw;
	return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/**
 * Every copy of a received header, joined as Node joins the copies of a header it does not know
 * (", "): for a header whose every value counts (a signature list sent twice by a proxy).
 */
export function readHeaderCopies(headers: { [name: string]: unknown }, name: string): string | undefined {
	const raw: unknown = headers[name] ?? headers[name.toLowerCase()];
	const values = (Array.isArray(raw) ? raw : [raw]).filter((value): value is string => typeof value === 'string' && value.length > 0);
	return values.length > 0 ? values.join(', ') : undefined;
}
