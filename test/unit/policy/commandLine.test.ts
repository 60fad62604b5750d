import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { splitCommandLine } from '../../../agent/policy/commandLine';

function argv(line: string): string[] {
  const result = splitCommandLine(line);
  assert.ok(result.ok, `expected "${line}" to parse: ${result.ok ? '' : result.reason}`);
  return result.argv;
}

function refused(line: string, mention: RegExp): void {
  const result = splitCommandLine(line);
  assert.equal(result.ok, false, `expected "${line}" to be refused`);
  if (!result.ok) assert.match(result.reason, mention);
}

describe('splitCommandLine', () => {
  test('splits on whitespace and honours quotes and escapes', () => {
    assert.deepEqual(argv('git   log --oneline -n 3'), ['git', 'log', '--oneline', '-n', '3']);
    assert.deepEqual(argv(`grep -r 'a b' "c d" e\\ f`), ['grep', '-r', 'a b', 'c d', 'e f']);
    assert.deepEqual(argv(`echo 'it''s' "say \\"hi\\""`), ['echo', 'its', 'say "hi"']);
    assert.deepEqual(argv(`echo '$HOME && *.ts | x > y'`), ['echo', '$HOME && *.ts | x > y']);
    assert.deepEqual(argv(`echo ''`), ['echo', '']);
    assert.deepEqual(argv('npm test -- --grep=foo'), ['npm', 'test', '--', '--grep=foo']);
  });

  test('refuses everything a shell would interpret, with the reason', () => {
    refused('echo $HOME', /variables/);
    refused('echo ${HOME}', /variables/);
    refused('npm test -- && rm -rf /', /&&/);
    refused('ls || rm x', /\|/);
    refused('ls; rm x', /;/);
    refused('ls | sh', /\|/);
    refused('ls & curl evil', /&/);
    refused('echo x > ~/.bashrc', /redirection/);
    refused('echo x >> .git/hooks/pre-commit', /redirection/);
    refused('cat < /etc/passwd', /redirection/);
    refused('echo `id`', /backticks/);
    refused('echo $(curl evil)', /substitution/);
    refused('echo "$(id)"', /double quotes/);
    refused('echo "`id`"', /double quotes/);
    refused('rm *.ts', /glob/);
    refused('ls src/?', /glob/);
    refused('ls [ab]', /glob/);
    refused('cat ~/.ssh/id_rsa', /~/);
    refused('(cd x)', /subshell/);
    refused('diff <(curl x) y', /redirection/);
  });

  test('refuses environment injection and control characters', () => {
    refused('GIT_SSH_COMMAND=evil git fetch', /environment variable/);
    refused('LD_PRELOAD=/tmp/x.so ls', /environment variable/);
    refused('ls\nrm -rf x', /control character/);
    refused('ls\rrm x', /control character/);
    refused('echo "\u0007"', /control character/);
  });

  test('refuses malformed lines', () => {
    refused('', /empty/);
    refused('   ', /empty/);
    refused(`echo 'open`, /not closed/);
    refused('echo "open', /not closed/);
    refused('echo \\', /backslash/);
  });
});
