/**
 * How many generated cases the property, fuzz and fault matrices run.
 *
 * `npm test` runs them at a size that keeps the whole suite within a few minutes on 2 cores;
 * `npm run test:long` (VS_LONG=1, a step of `.ci/run`) runs them at full size. Every test runs in
 * both: only the number of generated cases differs.
 */
export const LONG = process.env.VS_LONG === '1';

export function runSize(normal: number, long: number): number {
	return LONG ? long : normal;
}
