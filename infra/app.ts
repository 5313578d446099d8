import { App } from 'aws-cdk-lib';
import { addServiceStack } from './stack';

// `npx cdk synth|deploy -c stage=dev|prod ...`: the settings come from context (docs/deploying.md).
const app = new App();
addServiceStack(app);
app.synth();
