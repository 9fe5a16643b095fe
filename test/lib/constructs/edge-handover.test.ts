import { Stack } from 'aws-cdk-lib';
import { EdgeHandOver } from '../../../lib/constructs/edge-handover';

describe('edge hand-over', () => {
  test('a parameter name that is not a path fails synth, naming it and the form', () => {
    expect(
      () =>
        new EdgeHandOver(new Stack(), 'HandOver', {
          region: 'eu-west-1',
          parameters: { 'distribution-id': 'x' },
        }),
    ).toThrow(/parameter name "distribution-id": use a path such as \/animal-store\/edge\/name/);
  });
});
