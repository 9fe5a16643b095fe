import { blocked, fail, pass, type PreflightFacts, problemLine, skip } from './preflight-verdict';

/**
 * The platform domain's checks: its Route 53 zone is the domain's public zone, and public DNS
 * delegates the domain to that zone's name servers.
 */

/** GetHostedZone's zone is public and named for the platform domain. */
export function hostedZone(facts: PreflightFacts) {
  if (!facts.plan?.ok) return [skip(blocked(facts) ?? 'no plan')];
  const address = facts.plan?.ok ? facts.plan.value.platformAddress : undefined;
  if (!address)
    return [skip('no platform domain in this deploy (-c platformDomain, -c platformHostedZoneId)')];
  const { domain, hostedZoneId: id } = address;
  const zone = facts.hostedZone;
  if (!zone) return [skip(`hosted zone ${id}: ${blocked(facts) ?? 'not looked up'}`)];
  if (!zone.ok) return [problemLine(`hosted zone ${id}`, 'route53:GetHostedZone', zone.problem)];
  if (!zone.value) {
    return [
      fail(
        `no hosted zone ${id} in this account`,
        `create a public hosted zone for ${domain} (aws route53 create-hosted-zone --name ${domain} --caller-reference <unique>) and pass its id as -c platformHostedZoneId`,
      ),
    ];
  }
  if (zone.value.name !== domain) {
    return [
      fail(
        `hosted zone ${id} is for ${zone.value.name}, not ${domain}`,
        `pass the id of ${domain}'s public zone as -c platformHostedZoneId (aws route53 list-hosted-zones-by-name --dns-name ${domain})`,
      ),
    ];
  }
  if (zone.value.privateZone) {
    return [
      fail(
        `hosted zone ${id} (${domain}) is private: the certificates validated by DNS there would never validate`,
        `create a public hosted zone for ${domain}, delegate it, and pass its id as -c platformHostedZoneId`,
      ),
    ];
  }
  return [pass(`${id} is the public zone of ${domain}`)];
}

const sameSet = (a: readonly string[], b: readonly string[]) =>
  new Set(a).size === new Set(b).size && a.every((name) => b.includes(name));

/** Public DNS answers the domain's NS query with the zone's name servers. */
export function delegation(facts: PreflightFacts) {
  if (!facts.plan?.ok) return [skip(blocked(facts) ?? 'no plan')];
  const address = facts.plan?.ok ? facts.plan.value.platformAddress : undefined;
  if (!address) return [skip('no platform domain in this deploy')];
  const { domain } = address;
  const zone = facts.hostedZone;
  if (!zone?.ok || !zone.value || zone.value.privateZone || zone.value.name !== domain) {
    return [skip(`${domain}: needs the public hosted zone (see the hosted-zone check)`)];
  }
  const zoneServers = [...zone.value.nameServers].sort();
  const setThem = `at ${domain}'s registrar (or its parent zone), set its NS records to the zone's: ${zoneServers.join(', ')}`;
  const answer = facts.publicNameServers;
  if (!answer) return [skip(`${domain}: not looked up`)];
  if (!answer.ok)
    return [fail(`${domain}: ${answer.message}`, 'check the network (or --resolver), then run again')];
  const servers = [...answer.value].sort();
  if (servers.length === 0) {
    return [fail(`${domain} is not delegated: public DNS returns no NS records for it`, setThem)];
  }
  if (!sameSet(servers, zoneServers)) {
    return [fail(`${domain} is delegated elsewhere: public DNS returns NS ${servers.join(', ')}`, setThem)];
  }
  return [pass(`${domain} is delegated to the zone's name servers (${servers.join(', ')})`)];
}
