/** The producer name Tarsier writes in every witness and certificate. */
export const TOOL_NAME = 'tarsier';
