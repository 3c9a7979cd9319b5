// Exit 0 when tap's built Test class carries exactly the plugins package.json configures
// (the comparison tap's runner makes before it rebuilds), 1 when `tap build` is needed.
import '@tapjs/core';
import { signature } from '@tapjs/test';
import { TapConfig } from '@tapjs/config';

const config = await TapConfig.load();
process.exit(config.pluginSignature === signature ? 0 : 1);
