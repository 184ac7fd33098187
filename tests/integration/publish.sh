#!/usr/bin/env bash
# `harness publish DIR`: a static site from a database of real runs.
#  (1) A database: `run` of two variants at three shapes on OpenMP (a shape
#      sweep), NIGHTS real nights of a small suite (default 3), two change
#      points on one series (one triaged), a report beside the database.
#  (2) publish: exit 0, the index and a page per device x app x input and per
#      series, SVG figures, every href and src resolving to a file of the
#      site (nothing absolute, nothing from the network), every figure
#      captioned with commit, fingerprint and command; the triage states.
#  (3) Escaping: a variant, knobs and device name with <>&"' (an UPDATE on a
#      copy) come out as entities, never as markup.
#  (4) Exit codes: 2 bad usage, 1 no database (none created) or nothing
#      measured; the database unchanged by publish; without gnuplot the pages
#      say so and it exits 0.
#  (5) A real headless browser (Debian's chromium): the index and a series
#      page load with no console message (a control page with one must show
#      it), the rendered DOM has the tables and figures, screenshots are
#      non-empty PNGs. Without chromium these are skipped, never passed.
# PUBLISH_SHOTS=DIR keeps the screenshots and the site there.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
test_dir publish
export HARNESS_CACHE=${HARNESS_CACHE:-$T/cache} OMP_NUM_THREADS=1
unset HARNESS_ROOT HARNESS_BUILDS
H=bin/harness
db=$T/db/r.db
mkdir -p "$T/db"
NIGHTS=${NIGHTS:-3} # first night unchanged, a regression at the middle one, an improvement at the last
[ "$NIGHTS" -ge 2 ] || NIGHTS=2 # two change points on two different nights

# ---- (1) the database ----
$H run --device openmp --input gen:32x32 --iters 50 --reps 2 --variant final,t02-ported --wg 8x1,16x1,32x1 \
    --db "$db" >"$T/run.out" 2>&1
rc=$?
check "run: 2 variants x 3 shapes on openmp exits 0 (got $rc)" [ $rc -eq 0 ]
cat >"$T/small.sweep" <<'SWEEP'
app lbm
input gen:32x32
variant final t02-ported
device openmp
wg 32x1
iters 50
reps 2
warmup 1
timeout 120
SWEEP
failed_nights=0
for n in $(seq "$NIGHTS"); do
    $H nightly --suite "$T/small.sweep" --db "$db" --rounds 2 --burn-in 0 --no-confirm >"$T/night$n.out" 2>&1 ||
        failed_nights=$((failed_nights + 1))
done
check "$NIGHTS real nights stored ($failed_nights exited non-zero)" \
    [ "$(sqlite3 "$db" "SELECT count(*) FROM nightly")" = "$NIGHTS" ]
$H regressions --db "$db" --no-confirm >"$T/reg.out" 2>&1
mkdir -p "$T/db/report-testhost-openmp"
printf '# Report <on> testhost & openmp\n\n| a | b |\n|---|---|\n| 1 | 2 |\n' >"$T/db/report-testhost-openmp.md"
cp tests/data/wg-h100-final.csv "$T/db/report-testhost-openmp/cells.csv" 2>/dev/null ||
    echo x >"$T/db/report-testhost-openmp/cells.csv"

# Every href and src of every page is a relative path to a file of the site.
links_ok() { # DIR: prints the broken ones
    python3 - "$1" <<'PY'
import html.parser, os, sys, urllib.parse
site = sys.argv[1]
bad, n = [], 0
class P(html.parser.HTMLParser):
    def handle_starttag(self, tag, attrs):
        global n
        for k, v in attrs:
            if k in ("href", "src"):
                n += 1
                u = urllib.parse.urlparse(v)
                if u.scheme or v.startswith("/") or v.startswith("//"):
                    bad.append(f"{self.page}: not relative: {v}")
                elif not os.path.isfile(os.path.join(os.path.dirname(self.page), urllib.parse.unquote(u.path))):
                    bad.append(f"{self.page}: missing: {v}")
for root, _, files in os.walk(site):
    for f in files:
        if f.endswith(".html"):
            p = P()
            p.page = os.path.join(root, f)
            p.feed(open(p.page, encoding="utf-8").read())
print(f"{n} links")
for b in bad:
    print(b)
sys.exit(1 if bad or n == 0 else 0)
PY
}

# ---- (2) publish ----
site=$T/site
sum_before=$(md5sum <"$db")
$H publish "$site" --db "$db" >"$T/pub1.out" 2>&1
rc=$?
check "publish exits 0 (got $rc: $(tail -1 "$T/pub1.out"))" [ $rc -eq 0 ]
series_page=$(grep -l 'lbm gen-32x32 final 32x1' "$site"/series-*.html 2>/dev/null | head -1)
key=$(sed -n 's|.*series key <code class="key">\([^<]*\)</code>.*|\1|p' "$series_page" 2>/dev/null | head -1)
night6=$(sqlite3 "$db" "SELECT started_at FROM nightly ORDER BY started_at LIMIT 1 OFFSET $(((NIGHTS - 1) / 2))")
sqlite3 "$db" "INSERT INTO change_point(series, night, magnitude, p_value, triage, direction)
  VALUES ('$key', '$night6', 0.3, 0.0001, 'detected', 'regression'),
         ('$key', (SELECT started_at FROM nightly ORDER BY started_at DESC LIMIT 1), -0.25, 0.0001, 'detected', 'improvement')"
$H triage "$(sqlite3 "$db" "SELECT max(id) FROM change_point")" acknowledged --db "$db" >/dev/null 2>&1
sum_before=$(md5sum <"$db")
$H publish "$site" --db "$db" >"$T/pub.out" 2>&1
rc=$?
check "publish again over the same folder exits 0 (got $rc)" [ $rc -eq 0 ]
check "publish leaves the database as it was" [ "$(md5sum <"$db")" = "$sum_before" ]
check "index.html and style.css written" [ -s "$site/index.html" ] && [ -s "$site/style.css" ]
ncase=$(ls "$site"/case-*.html 2>/dev/null | wc -l)
check "one device x app x input page (got $ncase)" [ "$ncase" -eq 1 ]
nseries=$(ls "$site"/series-*.html 2>/dev/null | wc -l)
check "a page per nightly series: 2 variants and the canary (got $nseries)" [ "$nseries" -eq 3 ]
check "a report page, its Markdown and its folder copied" \
    [ -s "$site/report-testhost-openmp.html" ] && [ -s "$site/reports/report-testhost-openmp.md" ] &&
    [ -s "$site/reports/report-testhost-openmp/cells.csv" ]
links_quiet() { links_ok "$1" >/dev/null 2>&1; }
out=$(links_ok "$site" 2>&1)
check "every href and src resolves to a file of the site ($(echo "$out" | head -1))" links_quiet "$site"
echo "$out" | sed -n '2,6s/^/#   /p'
check "no page refers to the network (no http:// or https:// in href/src)" \
    bash -c "! grep -hoE '(href|src)=\"[a-z]+://' '$site'/*.html | grep -q ."
check "no JavaScript in any page" bash -c "! grep -qi '<script' '$site'/*.html"
fp=$(sqlite3 "$db" "SELECT fingerprint FROM device WHERE spec = 'openmp'")
case_page=$(ls "$site"/case-*.html | head -1)
check "index lists the device with spec, name, driver and fingerprint, and links its page" \
    bash -c "grep -q '<code>$fp</code>' '$site/index.html' && grep -q \"href=\\\"$(basename "$case_page")\\\"\" '$site/index.html' &&
             grep -q \"$(sqlite3 "$db" "SELECT name FROM device WHERE spec = 'openmp'")\" '$site/index.html'"
check "case page: a row per variant (final, t02-ported) with median, CV % and commit" \
    bash -c "[ \$(grep -c '^<tr><td>\(final\|t02-ported\)</td><td>[0-9]*x[0-9]*</td>' '$case_page') -eq 2 ] && grep -q 'CV %' '$case_page'"
check "case page: the variants chart and a work-group figure per variant, SVG files that exist" \
    bash -c "[ \$(grep -o '<img src=\"fig/[^\"]*\.svg\"' '$case_page' | wc -l) -eq 3 ]"
check "every figure is captioned with a commit, the fingerprint and the command that draws it" \
    bash -c "n=\$(cat '$site'/*.html | grep -c '<figure>'); c=\$(cat '$site'/*.html | grep -c 'Commit <code>[0-9a-f]\{12\}.*device fingerprint <code>[^<]*$fp.*drawn again by <code>bin/harness plot \(variants\|wg\|nightly\) '); [ \$n -ge 6 ] && [ \$n -eq \$c ]"
check "case page: plot wg's command names the device, input and variant" \
    grep -q "bin/harness plot wg --app lbm --device $fp --input gen-32x32 --variant final --db " "$case_page"
series_page=$(grep -l "$key" "$site"/series-*.html | head -1)
check "series page: the trend (SVG), $NIGHTS nights, the change points with their triage state" \
    bash -c "grep -q '<img src=\"fig/series-[^\"]*\.svg\"' '$series_page' && [ \$(grep -c '^<tr><td class=\"num\">[0-9]*</td><td>20' '$series_page') -ge $((NIGHTS + 2)) ] &&
             grep -q '<td class=\"detected\">detected</td>' '$series_page' && grep -q '<td class=\"acknowledged\">acknowledged</td>' '$series_page'"
check "index: the series has 2 change points, 1 untriaged" \
    grep -q "final 32x1</a></td><td><code>$fp</code></td><td class=\"num\">$NIGHTS</td><td class=\"num\">[^<]*</td><td class=\"num\">2</td><td class=\"num detected\">1</td>" "$site/index.html"
check "report page: the Markdown escaped" grep -q '# Report &lt;on&gt; testhost &amp; openmp' "$site/report-testhost-openmp.html"

$H publish "$T/slash///" --db "$db" >/dev/null 2>&1
check "publish into DIR/ (trailing slashes): every href and src still a relative path that resolves" links_quiet "$T/slash"

# ---- (3) escaping ----
edb=$T/db/evil.db
cp "$db" "$edb"
sqlite3 "$edb" "UPDATE measurement SET variant = 'v<b>&\"x''</b>' WHERE id = (SELECT max(id) FROM measurement WHERE status = 'ok');
  UPDATE config SET knobs = knobs || ',evil=<i>&amp;</i>' WHERE id = (SELECT config_id FROM measurement WHERE id = (SELECT max(id) FROM measurement WHERE status = 'ok'));
  UPDATE device SET name = 'CPU <script>alert(1)</script> & co'"
$H publish "$T/evil" --db "$edb" --reports "$T/none" >"$T/evil.out" 2>&1
rc=$?
check "publish of strings with <>&\"' exits 0 (got $rc)" [ $rc -eq 0 ]
check "the variant, knobs and device name come out as entities" \
    bash -c "grep -q 'v&lt;b&gt;&amp;&quot;x&#39;&lt;/b&gt;' '$T'/evil/case-*.html && grep -q 'evil=&lt;i&gt;&amp;amp;&lt;/i&gt;' '$T'/evil/case-*.html &&
             grep -q 'CPU &lt;script&gt;alert(1)&lt;/script&gt; &amp; co' '$T/evil/index.html'"
check "and never as markup (no <script>, <b> or <i> in any page)" \
    bash -c "! grep -qE '<script|<b>|<i>' '$T'/evil/*.html"
check "every SVG figure of that site is well-formed XML (the strings in gnuplot's titles escaped too)" \
    python3 -c 'import glob, sys, xml.dom.minidom as m
f = glob.glob(sys.argv[1] + "/fig/**/*.svg", recursive=True)
[m.parse(x) for x in f]
sys.exit(len(f) < 4)' "$T/evil"

# ---- (4) exit codes ----
$H publish >/dev/null 2>&1
rc=$?
check "publish without DIR exits 2 (got $rc)" [ $rc -eq 2 ]
$H publish "$T/a" "$T/b" --db "$db" >/dev/null 2>&1
rc=$?
check "publish with two folders exits 2 (got $rc)" [ $rc -eq 2 ]
$H publish "$T/a" --db "$db" --nosuch >/dev/null 2>&1
rc=$?
check "publish with an unknown option exits 2 (got $rc)" [ $rc -eq 2 ]
$H publish "$T/a" --db "$T/missing.db" >"$T/missing.out" 2>&1
rc=$?
check "publish of a missing database exits 1, says so, creates none (got $rc)" \
    bash -c "[ $rc -eq 1 ] && grep -q 'no database at' '$T/missing.out' && [ ! -e '$T/missing.db' ]"
cp "$db" "$T/db/empty.db"
sqlite3 "$T/db/empty.db" "DELETE FROM sample; DELETE FROM measurement"
$H publish "$T/a" --db "$T/db/empty.db" >"$T/empty.out" 2>&1
rc=$?
check "publish of a database with no measurements exits 1: nothing to publish (got $rc)" \
    bash -c "[ $rc -eq 1 ] && grep -q 'nothing to publish' '$T/empty.out'"
$H publish --help | grep -q 'Exit status: 0 written, 1 no database'
check "publish --help states the exit codes" [ $? -eq 0 ]
# Without gnuplot: a PATH of everything but gnuplot.
mkdir -p "$T/nognuplot"
for d in /usr/local/bin /usr/bin /bin; do
    for f in "$d"/*; do
        b=$(basename "$f")
        [ "$b" = gnuplot ] || [ -e "$T/nognuplot/$b" ] || ln -s "$f" "$T/nognuplot/$b" 2>/dev/null
    done
done
PATH=$T/nognuplot $H publish "$T/plain" --db "$db" >"$T/plain.out" 2>&1
rc=$?
check "publish without gnuplot exits 0 and says so (got $rc)" \
    bash -c "[ $rc -eq 0 ] && grep -q 'no gnuplot' '$T/plain.out'"
check "without gnuplot: the pages note it where each figure would be, and link nothing missing" \
    bash -c "grep -q 'gnuplot was not found' '$T'/plain/case-*.html && ! ls '$T'/plain/fig/*.svg >/dev/null 2>&1 && [ \$(ls '$T'/plain/series-*.html | wc -l) -eq 3 ]"
check "without gnuplot: every href and src still resolves" links_quiet "$T/plain"

# ---- (5) a real headless browser ----
browser=$(command -v chromium || command -v chromium-browser || true)
shots=${PUBLISH_SHOTS:-$T/shots}
mkdir -p "$shots"
chrome() { # URL-less args..., then the page: stdout the DOM or nothing, stderr the log
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu --enable-logging=stderr --v=0 "$@"
}
is_png() { [ -s "$1" ] && [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; }
if [ -z "$browser" ]; then
    for c in "a control page's console message is seen" "index: no console messages" "index: the rendered DOM has the tables and figures" \
        "index: a non-empty PNG screenshot" "series page: no console messages, its figure and tables rendered" \
        "series page: a non-empty PNG screenshot"; do
        echo "ok - browser: $c # skip no chromium (apt-get install chromium; scripts/deps.sh install)"
    done
else
    printf '<!DOCTYPE html><html><body><p>control</p><script>console.error("publish-test-control")</script></body></html>' >"$T/control.html"
    chrome --dump-dom "file://$T/control.html" >/dev/null 2>"$T/control.log"
    check "browser: a control page's console message is seen in the log (so a clean log means something)" \
        grep -q 'CONSOLE.*publish-test-control' "$T/control.log"
    chrome --dump-dom "file://$site/index.html" >"$T/index.dom" 2>"$T/index.log"
    check "browser: index loads with no console messages ($(grep -c CONSOLE "$T/index.log") seen)" \
        bash -c "! grep -qE 'CONSOLE|Uncaught|ERR_FILE_NOT_FOUND' '$T/index.log'"
    check "browser: the index's rendered DOM has the devices, cases and series tables and the report list" \
        bash -c "grep -q '<table id=\"devices\">' '$T/index.dom' && grep -q '<table id=\"cases\">' '$T/index.dom' &&
                 grep -q '<table id=\"series\">' '$T/index.dom' && grep -q '<ul id=\"reports\">' '$T/index.dom' && grep -q '$fp' '$T/index.dom'"
    chrome --screenshot="$shots/index.png" --window-size=1200,900 "file://$site/index.html" >/dev/null 2>"$T/shot1.log"
    check "browser: a non-empty PNG screenshot of the index ($shots/index.png)" is_png "$shots/index.png"
    chrome --dump-dom "file://$series_page" >"$T/series.dom" 2>"$T/series.log"
    check "browser: the series page loads with no console messages, its figure and tables rendered" \
        bash -c "! grep -qE 'CONSOLE|Uncaught|ERR_FILE_NOT_FOUND' '$T/series.log' && grep -q '<img src=\"fig/series-' '$T/series.dom' &&
                 grep -q '<table id=\"change-points\">' '$T/series.dom' && grep -q '<table id=\"nights\">' '$T/series.dom'"
    chrome --screenshot="$shots/series.png" --window-size=1200,1100 "file://$series_page" >/dev/null 2>"$T/shot2.log"
    check "browser: a non-empty PNG screenshot of the series page ($shots/series.png)" is_png "$shots/series.png"
    # The case page's screenshot is for a reader of PUBLISH_SHOTS only (nothing checks it).
    if [ -n "${PUBLISH_SHOTS:-}" ]; then
        chrome --screenshot="$shots/case.png" --window-size=1200,1600 "file://$case_page" >/dev/null 2>&1
        rm -rf "$shots/site" && cp -r "$site" "$shots/site"
    fi
fi
exit $((fails > 0))
