/** infra/local/lambda-node.mjs: the Node.js of the Lambda runtime, on this machine. */
export declare const LAMBDA_NODE_MAJOR: number;
export declare function installLambdaNode(options?: { quiet?: boolean }): void;
export declare function lambdaNodeBinary(): string;
