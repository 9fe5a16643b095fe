/**
 * `npm run example -w client`: the client against local mode. It creates pets, lists them
 * and pages through them, then spends the rest of the project's minute and shows the client
 * waiting out the 429's `Retry-After` and succeeding. Start local mode with a Free project,
 * then pass the key it printed (and `BASE` for another address than local mode's default):
 *
 *   DEV_PROJECT_PLAN=free npm start
 *   KEY=ask_… npm run example -w client
 */
import { AnimalStoreError, ApiError, createClient } from './src/index.ts';

const baseUrl = process.env.BASE ?? 'http://127.0.0.1:3000/v1';
const apiKey = process.env.KEY ?? '';
if (apiKey === '') {
  console.error('Set KEY to an API key (npm start prints one), and BASE to its address if not the default.');
  process.exit(2);
}

let waits = 0;
const client = createClient({
  baseUrl,
  apiKey,
  onRetry: ({ status, delayMs, kind, attempt }) => {
    waits++;
    const wait = `${(delayMs / 1000).toFixed(1)} s`;
    console.log(
      `  ${status ?? 'no answer'} on attempt ${attempt}: waiting ${wait} (${kind}) before trying again`,
    );
  },
});
const left = () =>
  client.rateLimit ? `${client.rateLimit.remaining} of ${client.rateLimit.limit} left` : '';

try {
  for (const name of ['Rex', 'Tom', 'Kit']) {
    const pet = await client.createPet({ name, categoryId: 1 });
    console.log(`Created ${pet.name} (id ${pet.id}); ${left()} this minute.`);
  }
  const page = await client.listPets({ limit: 2 });
  console.log(
    `One page of 2: ${page.pets.map((pet) => pet.name).join(', ')}; next page: ${page.next ?? 'none'}.`,
  );
  const names: string[] = [];
  for await (const pet of client.allPets({ limit: 2 })) names.push(pet.name);
  console.log(`Every pet, 2 per page: ${names.join(', ')}; ${left()}.`);

  console.log('Spending the rest of the minute; the client waits when the service says 429:');
  for (let calls = 0; waits === 0; calls++) {
    await client.listPets({ limit: 1 });
    if (waits > 0) console.log(`Succeeded after waiting, ${calls + 1} calls later; ${left()}.`);
  }
} catch (error) {
  if (!(error instanceof AnimalStoreError)) throw error;
  const detail = error instanceof ApiError ? `${error.status} ${error.code}: ` : '';
  console.error(
    `${detail}${error.message} (${error.retry.attempts} attempts, stopped: ${error.retry.reason})`,
  );
  process.exit(1);
}
