// The wording of an answer cut short by the time limit (shared by `verify`
// and the command that prints a hard time-out, without loading the verifier).

/** The reason of an answer cut short by the time limit: what was established by then. */
export function timeLimitReason(bound: number): string {
  return bound > 0 ? `time limit reached; no violation up to bound ${bound}` : 'time limit reached before bound 1 was checked';
}
