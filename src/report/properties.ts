import { preferredProperties } from '../properties/index.js';
import { propertyFileText, type PropertyKind } from '../task/index.js';

/** The properties the playground checks (the property table's default choices), with the text of their `.prp` files. */
export const PLAYGROUND_PROPERTIES: Readonly<Partial<Record<PropertyKind, string>>> = Object.fromEntries(
  preferredProperties().map((k) => [k, propertyFileText(k)]),
);

export type PlaygroundProperty = PropertyKind;
