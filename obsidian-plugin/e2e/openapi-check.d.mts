// Types of openapi-check.mjs, so the unit tests can call the contract check from TypeScript.
export function compareWireTypes(openapi: unknown, wireFields: Record<string, Record<string, string>>): string[];
export function pendingFields(openapi: unknown, wireFields: Record<string, Record<string, string>>): string[];
