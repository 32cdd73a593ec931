// Validates every object of a multi-document YAML stream (helm template's
// output, on stdin) against the Kubernetes schemas of npm kubernetes-models.
// An object whose kind has no model, or that fails its schema, fails the run.
// Usage: node validate_k8s.js NODE_MODULES_DIR < rendered.yaml
'use strict';
const path = require('path');
const modules = process.argv[2];
const YAML = require(path.join(modules, 'yaml'));

// apiVersion "apps/v1" -> kubernetes-models/apps/v1/<Kind>; "v1" -> v1/<Kind>.
function modelFor(obj) {
  const file = path.join(modules, 'kubernetes-models', obj.apiVersion, obj.kind);
  try {
    const m = require(file);
    return m[obj.kind] || m.default;
  } catch (e) {
    return null;
  }
}

const input = require('fs').readFileSync(0, 'utf8');
let count = 0, bad = 0;
for (const doc of YAML.parseAllDocuments(input)) {
  if (doc.errors.length) {
    console.error('YAML error: ' + doc.errors[0].message);
    bad++;
    continue;
  }
  const obj = doc.toJS();
  if (!obj) continue;
  count++;
  const name = `${obj.kind} ${obj.metadata && obj.metadata.name}`;
  const Model = modelFor(obj);
  if (!Model) {
    console.error(`${name}: no schema for ${obj.apiVersion} ${obj.kind}`);
    bad++;
    continue;
  }
  try {
    new Model(obj).validate();
    console.log(`ok  ${obj.apiVersion} ${name}`);
  } catch (e) {
    console.error(`${name}: ${e.message}`);
    bad++;
  }
}
if (count === 0) {
  console.error('no objects to validate');
  process.exit(1);
}
process.exit(bad ? 1 : 0);
