import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { ownerEnvNames, ownerOf } from '../../src/config/owner-of.js';
import { problemsOf } from './support.js';

const accounts = [{ name: 'main', apiKey: 'rpa_owners_key_0001' }];
const parse = (owners?: unknown) => parseConfig({ accounts, owners }, { env: {}, baseDir: '/' }).owners;

describe('owners section', () => {
  it('is empty when absent, so nothing has an owner', () => {
    const owners = parse();
    expect(owners).toEqual({ fromEnv: { owner: [], team: [] }, fromName: [], default: {}, contacts: {} });
    expect(ownerOf(owners, { name: 'ml-alice-notebook', env: { OWNER: 'alice', TEAM: 'ml' } })).toEqual({
      owner: null,
      team: null,
    });
    expect(ownerEnvNames(owners)).toEqual([]);
  });

  it('names each bad pattern and contact by its path', () => {
    const problems = problemsOf(() =>
      parse({
        fromName: ['^(?<team>[a-z]+', '^[a-z]+-(?<person>[a-z]+)', '^(?<owner>[a-z]+)-'],
        default: { owner: '' },
        contacts: { alice: { email: ['not-an-address'], pager: ['x'] } },
      }),
    );
    expect(problems).toEqual([
      {
        path: 'owners.fromName[0]',
        message: expect.stringMatching(/^invalid regular expression "\^\(\?<team>\[a-z\]\+": .+/),
      },
      {
        path: 'owners.fromName[1]',
        message: 'pattern "^[a-z]+-(?<person>[a-z]+)" has neither named group (?<owner>…) nor (?<team>…)',
      },
      { path: 'owners.default.owner', message: 'must not be empty' },
      {
        path: 'owners.contacts.alice.email[0]',
        message: 'invalid email address "not-an-address" (expected name@example.com)',
      },
      { path: 'owners.contacts.alice.pager', message: 'unknown field' },
    ]);
  });
});

describe('ownerOf', () => {
  const owners = parse({
    fromEnv: { owner: ['OWNER', 'USER_EMAIL'], team: ['TEAM'] },
    fromName: ['^(?<team>[a-z]+)-(?<owner>[a-z]+)-', '^shared-(?<team>[a-z]+)$'],
    default: { team: 'platform' },
  });

  it('takes env keys first, in the order listed', () => {
    expect(ownerOf(owners, { name: 'ml-bob-train', env: { OWNER: 'alice', TEAM: 'vision' } })).toEqual({
      owner: 'alice',
      team: 'vision',
    });
    expect(ownerOf(owners, { name: 'x', env: { USER_EMAIL: 'carol@example.com' } })).toEqual({
      owner: 'carol@example.com',
      team: 'platform',
    });
  });

  it('resolves each field on its own: a blank env value falls through to the name, then the default', () => {
    expect(ownerOf(owners, { name: 'ml-bob-train', env: { OWNER: '  ', TEAM: 'vision' } })).toEqual({
      owner: 'bob',
      team: 'vision',
    });
    expect(ownerOf(owners, { name: 'shared-nlp', env: {} })).toEqual({ owner: null, team: 'nlp' });
    expect(ownerOf(owners, { name: 'Notebook', env: null })).toEqual({ owner: null, team: 'platform' });
  });

  it('reads endpoints and volumes (no env) and nameless resources', () => {
    expect(ownerOf(owners, { name: 'ml-dave-endpoint' })).toEqual({ owner: 'dave', team: 'ml' });
    expect(ownerOf(owners, { name: null })).toEqual({ owner: null, team: 'platform' });
    expect(ownerOf(parse({ fromName: ['(?<owner>.*)'] }), { name: null })).toEqual({ owner: null, team: null });
  });

  it('never gives an empty value: an empty named group is no value', () => {
    const lenient = parse({ fromName: ['^(?<owner>[a-z]*)-'] });
    expect(ownerOf(lenient, { name: '-gpu' })).toEqual({ owner: null, team: null });
  });

  it('lists the env keys the collector must keep, once each', () => {
    expect(ownerEnvNames(parse({ fromEnv: { owner: ['OWNER', 'LEAD'], team: ['LEAD', 'TEAM'] } }))).toEqual([
      'OWNER',
      'LEAD',
      'TEAM',
    ]);
  });
});
