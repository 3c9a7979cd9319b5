import t from 'tap';
import { wantsOpenMetrics } from '../../../core/obs/metrics-accept.js';

t.test('a scrape gets OpenMetrics only when its Accept header prefers it', async (t) => {
  // what Prometheus 2.x and 3.x send (scrape_protocols default order)
  t.equal(wantsOpenMetrics('application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1'), true);
  t.equal(wantsOpenMetrics('application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.6,text/plain;version=0.0.4;q=0.4,*/*;q=0.1'), true);
  t.equal(wantsOpenMetrics('Application/OpenMetrics-Text'), true, 'media types are case-insensitive; no version means the current one');
  t.equal(wantsOpenMetrics('text/plain;version=0.0.4;q=1, application/openmetrics-text;q=1'), true, 'a tie goes to the type named explicitly');

  t.equal(wantsOpenMetrics(undefined), false, 'no header: the text format');
  t.equal(wantsOpenMetrics('*/*'), false);
  t.equal(wantsOpenMetrics('text/plain'), false);
  t.equal(wantsOpenMetrics('text/plain;q=1, application/openmetrics-text;q=0.5'), false, 'the text format weighted higher');
  t.equal(wantsOpenMetrics('application/openmetrics-text;version=0.0.1'), false, 'a version this renderer does not write');
  t.equal(wantsOpenMetrics('application/openmetrics-text;q=0'), false, 'q=0 is "not acceptable"');
  t.equal(wantsOpenMetrics('application/openmetrics-text;q=2'), false, 'a q-value out of range counts as 0');
  t.equal(wantsOpenMetrics('application/openmetrics-text;q=abc'), false);
  t.equal(wantsOpenMetrics(';;;,,,=,q=;'), false, 'junk');
  t.equal(wantsOpenMetrics('text/plain;q=0.1,' + 'x/y,'.repeat(2000) + 'application/openmetrics-text'), false, 'an oversized header is not parsed');
});
