import { App } from 'aws-cdk-lib';

// The stack is built from shared/routes.ts in issue 4; until then the app synthesizes nothing.
new App().synth();
