/** The `.prp` texts (SV-COMP's) of the two properties the playground checks, by name. */
export const PLAYGROUND_PROPERTIES = {
  'unreach-call': 'CHECK( init(main()), LTL(G ! call(reach_error())) )\n',
  'no-overflow': 'CHECK( init(main()), LTL(G ! overflow) )\n',
} as const;

export type PlaygroundProperty = keyof typeof PLAYGROUND_PROPERTIES;
