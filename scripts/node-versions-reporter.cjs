// The mocha reporter of scripts/test-node-versions.ts: mocha's spec reporter, so
// the run's log shows its progress as it goes (`tail -f .tmp/node-<major>/output.log`),
// that also writes, when the run ends, its counts and failed tests as JSON to the
// file named by the reporter option `output`, which the script reads.
// CommonJS: mocha loads a reporter with require().
'use strict';
const fs = require('node:fs');
const Mocha = require('mocha');

const { EVENT_RUN_END, EVENT_TEST_FAIL } = Mocha.Runner.constants;

class SpecWithResults extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const output = options.reporterOption && options.reporterOption.output;
    if (!output) throw new Error('node-versions-reporter: give --reporter-option output=<file>');
    const failures = [];
    runner.on(EVENT_TEST_FAIL, (test, error) => {
      failures.push({ fullTitle: test.fullTitle(), file: test.file, err: { message: String((error && error.message) || error) } });
    });
    runner.once(EVENT_RUN_END, () => {
      const { passes, failures: failed, pending } = this.stats;
      fs.writeFileSync(output, JSON.stringify({ stats: { passes, failures: failed, pending }, failures }, null, 2));
    });
  }
}

module.exports = SpecWithResults;
