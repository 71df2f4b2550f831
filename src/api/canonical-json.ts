// Moved to src/util (the API server uses it too); kept here for existing importers.
export { canonicalJson } from '../util/canonical-json.ts';
