export { FakeAnthropicApi } from './anthropic-api.js';
export { FakeModelApi, type Recorded } from './fake-server.js';
export { FakeGeminiApi } from './gemini-api.js';
export { FakeOpenAiResponsesApi } from './openai-responses-api.js';
