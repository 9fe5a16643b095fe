import path from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { AttributeType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { Runtime } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';

/**
 * The synth bench's baseline: the smallest CDK app of this kind, one stock NodejsFunction
 * (bench/baseline-handler.ts, bundled like the service's functions) reading one DynamoDB table.
 * bench/synth.ts synthesizes it with the same CLI and cdk.json as the whole app.
 */
const app = new App();
const stack = new Stack(app, 'SynthBaseline');
const table = new Table(stack, 'Pets', { partitionKey: { name: 'id', type: AttributeType.NUMBER } });
const fn = new NodejsFunction(stack, 'GetPet', {
  entry: path.join(__dirname, 'baseline-handler.ts'),
  runtime: Runtime.NODEJS_22_X,
  environment: { PETS_TABLE_NAME: table.tableName },
  bundling: { minify: true, target: 'node22', format: OutputFormat.CJS, externalModules: [] },
});
table.grantReadData(fn);
