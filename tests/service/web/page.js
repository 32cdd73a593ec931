// Opens the service's page, submits the selected problem's starter code on
// the CPU device and waits for CHECKED in the status line.
const puppeteer = require("puppeteer-core");

(async () => {
  const url = process.argv[2];
  const browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
  });
  let ok = false;
  try {
    const page = await browser.newPage();
    page.on("pageerror", (e) => console.log("page error: " + e.message));
    await page.goto(url, { waitUntil: "networkidle0" });
    await page.waitForFunction(() => document.querySelectorAll("#problem option").length >= 8);
    await page.select("#problem", "vector-addition");
    await page.waitForFunction(() => document.getElementById("code").value.includes("solution"));
    const gpus = await page.$$eval("#gpu option", (o) => o.map((x) => x.value));
    console.log("gpu types: " + gpus.join(", "));
    await page.select("#gpu", "cpu");
    await page.click("#submit");
    await page.waitForFunction(() => {
      const s = document.getElementById("final").textContent;
      return ["CHECKED", "WRONG_ANSWER", "COMPILE_ERROR", "RUNTIME_ERROR", "ERROR"].includes(s);
    }, { timeout: 60000 });
    const status = await page.$eval("#final", (e) => e.textContent);
    const events = await page.$eval("#events", (e) => e.textContent);
    console.log("status: " + status);
    console.log("events seen: " + events.split("\n").filter((l) => l).map((l) => l.split(" ")[0]).join(", "));
    await page.waitForFunction(() => document.querySelectorAll("#history tbody tr").length >= 1);
    ok = status === "CHECKED" && events.includes("IN_QUEUE") && events.includes("TEST_RESULT");
  } finally {
    await browser.close();
  }
  process.exit(ok ? 0 : 1);
})().catch((e) => { console.error(e); process.exit(1); });
