/**
 * Seed 004 §8.1.4: the dynamic-interrupt patterns with the outcomes the seed
 * prints, plus how many times each node ran. Where Switchboard decides
 * differently from LangGraph (interrupt ids), decisions.test.ts covers it.
 */
import { describe, expect, it } from "vitest";
import { Command, END, START, StateGraph, interrupt, lastValue, reducer, type Interrupt } from "../../engine/index.ts";
import { addMessages, humanMessage, isAIMessage, type Message, type MessagesUpdate } from "../../engine/messages/index.ts";
import { ScriptedChatModel, tool, toolNode } from "../../engine/models/index.ts";
import { RunLog, SAVERS, useSaver } from "./fixtures.ts";

const messagesChannel = () => reducer<Message[], MessagesUpdate>((all, update) => addMessages(all, update), () => []);

function asksForTools(messages: readonly Message[]): boolean {
  const last = messages.at(-1);
  return last !== undefined && isAIMessage(last) && last.tool_calls.length > 0;
}

describe.each(SAVERS)("seed HITL patterns ($name)", (kind) => {
  const saver = useSaver(kind);

  it("basic HITL: one interrupt, resume with the answer → state", async () => {
    const log = new RunLog();
    const graph = new StateGraph({ username: lastValue<string>() })
      .addNode("node_a", () => {
        log.hit("node_a");
        return { username: interrupt<string>("请输入您的姓名") };
      })
      .addEdge(START, "node_a")
      .addEdge("node_a", END)
      .compile({ checkpointer: saver() });

    const paused = await graph.invoke({}, { threadId: "123" });
    expect(paused).toEqual({ __interrupt__: [{ id: expect.stringMatching(/^[0-9a-f]{32}$/), value: "请输入您的姓名" }] });
    expect(log.count("node_a")).toBe(1);

    const prompt = (paused.__interrupt__?.[0] as Interrupt).value;
    expect(prompt).toBe("请输入您的姓名");
    const resumed = await graph.invoke(new Command({ resume: "小黄" }), { threadId: "123" });
    expect(resumed).toEqual({ username: "小黄" });
    // The node runs again from its first line on resume.
    expect(log.count("node_a")).toBe(2);
  });

  it("parallel interrupts: both listed, answered with a map by interrupt id", async () => {
    const log = new RunLog();
    const graph = new StateGraph({ username: lastValue<string>(), age: lastValue<number>() })
      .addNode("node_a", () => {
        log.hit("node_a");
        return { username: interrupt<string>("请输入您的姓名") };
      })
      .addNode("node_b", () => {
        log.hit("node_b");
        return { age: interrupt<number>("请输入您的年龄") };
      })
      .addEdge(START, "node_a")
      .addEdge(START, "node_b")
      .addEdge("node_a", END)
      .addEdge("node_b", END)
      .compile({ checkpointer: saver() });

    const paused = await graph.invoke({}, { threadId: "123" });
    const interrupts = paused.__interrupt__ ?? [];
    // Both interrupts of the step, in task order (node_a, node_b), with distinct ids.
    expect(interrupts.map((i) => i.value)).toEqual(["请输入您的姓名", "请输入您的年龄"]);
    expect(new Set(interrupts.map((i) => i.id)).size).toBe(2);
    expect(Object.keys(paused).sort()).toEqual(["__interrupt__"]);

    const answers: Record<string, unknown> = {};
    for (const i of interrupts) answers[i.id] = String(i.value).includes("年龄") ? 19 : "小黄";
    const resumed = await graph.invoke(new Command({ resume: answers }), { threadId: "123" });
    expect(resumed).toEqual({ username: "小黄", age: 19 });
    expect([log.count("node_a"), log.count("node_b")]).toEqual([2, 2]);
  });

  it("approval: Command({ goto, update }) routes approve and reject (two threads)", async () => {
    const log = new RunLog();
    const graph = new StateGraph({ topic: lastValue<string>(), poem: lastValue<string>(), is_approved: lastValue<boolean>() })
      .addNode(
        "approve_node",
        () => {
          log.hit("approve_node");
          const approved = interrupt<boolean>("是否同意调用模型?");
          return new Command({ goto: approved ? "llm_node" : "default_node", update: { is_approved: approved } });
        },
        { ends: ["llm_node", "default_node"] },
      )
      .addNode("llm_node", (state) => {
        log.hit("llm_node");
        return { poem: `《咏${state.topic}》` };
      })
      .addNode("default_node", () => {
        log.hit("default_node");
        return { poem: "请求被拒绝" };
      })
      .addEdge(START, "approve_node")
      .addEdge("llm_node", END)
      .addEdge("default_node", END)
      .compile({ checkpointer: saver() });

    const first = await graph.invoke({ topic: "菊花" }, { threadId: "234" });
    expect(first).toEqual({ topic: "菊花", __interrupt__: [{ id: expect.any(String), value: "是否同意调用模型?" }] });
    expect(await graph.invoke(new Command({ resume: true }), { threadId: "234" })).toEqual({
      topic: "菊花",
      poem: "《咏菊花》",
      is_approved: true,
    });
    expect(log.take()).toEqual(["approve_node", "approve_node", "llm_node"]);

    const second = await graph.invoke({ topic: "牡丹花" }, { threadId: "456" });
    expect(second).toEqual({ topic: "牡丹花", __interrupt__: [{ id: expect.any(String), value: "是否同意调用模型?" }] });
    // A different thread: a different question, so a different id.
    expect(second.__interrupt__?.[0]?.id).not.toBe(first.__interrupt__?.[0]?.id);
    expect(await graph.invoke(new Command({ resume: false }), { threadId: "456" })).toEqual({
      topic: "牡丹花",
      poem: "请求被拒绝",
      is_approved: false,
    });
    expect(log.take()).toEqual(["approve_node", "approve_node", "default_node"]);
  });

  it("review and edit: the reviewer's edit becomes state; the generator is not re-run", async () => {
    const log = new RunLog();
    const poem = "《布偶猫》\n冰眸玉骨雪团身，蓝影衔春卧月轮。";
    const graph = new StateGraph({ topic: lastValue<string>(), poem: lastValue<string>(), reviewed_poem: lastValue<string>() })
      .addNode("llm_node", () => {
        log.hit("llm_node");
        return { poem };
      })
      .addNode("review_node", (state) => {
        log.hit("review_node");
        const reviewed = interrupt<string>({ instruction: "请审核并修改大模型生成的七言绝句", poem: state.poem });
        return { reviewed_poem: reviewed };
      })
      .addEdge(START, "llm_node")
      .addEdge("llm_node", "review_node")
      .addEdge("review_node", END)
      .compile({ checkpointer: saver() });

    const paused = await graph.invoke({ topic: "布偶猫" }, { threadId: "review_test" });
    expect(paused).toEqual({
      topic: "布偶猫",
      poem,
      __interrupt__: [{ id: expect.any(String), value: { instruction: "请审核并修改大模型生成的七言绝句", poem } }],
    });
    const edited = `已审核：${poem}`;
    expect(await graph.invoke(new Command({ resume: edited }), { threadId: "review_test" })).toEqual({
      topic: "布偶猫",
      poem,
      reviewed_poem: edited,
    });
    expect(log.entries).toEqual(["llm_node", "review_node", "review_node"]);
  });

  it("tool approval inside a tool loop: the tool asks, only the tool node re-runs", async () => {
    const log = new RunLog();
    const getWeather = tool<{ city: string }>(
      ({ city }) => {
        log.hit("get_weather");
        const approved = interrupt<boolean>({ action: "get_weather", question: "是否同意查询天气？" });
        log.hit(`approved:${approved}`);
        return approved ? `${city} 今天天气不错` : "用户拒绝查询天气";
      },
      { name: "get_weather", description: "查询指定城市的当日天气", schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } },
    );
    const model = new ScriptedChatModel({
      responses: [
        { content: "好的，我来查询一下今天北京的天气情况。", toolCalls: [{ id: "call_00", name: "get_weather", args: { city: "北京" } }] },
        "今天北京的天气不错哦！",
      ],
    });
    const withTools = model.bindTools([getWeather]);
    const runTools = toolNode([getWeather]);
    const graph = new StateGraph({ messages: messagesChannel() })
      .addNode("llm_node", async (state, runtime) => {
        log.hit("llm_node");
        return { messages: [await withTools.invoke(state.messages, { signal: runtime.signal })] };
      })
      .addNode("tool_node", (state, runtime) => {
        log.hit("tool_node");
        return runTools(state, runtime);
      })
      .addEdge(START, "llm_node")
      .addConditionalEdges("llm_node", (state) => (asksForTools(state.messages) ? "tool_node" : END), ["tool_node", END])
      .addEdge("tool_node", "llm_node")
      .compile({ checkpointer: saver() });

    const paused = await graph.invoke({ messages: [humanMessage("今天北京天气如何？")] }, { threadId: "tool_test" });
    expect(paused.__interrupt__).toEqual([{ id: expect.any(String), value: { action: "get_weather", question: "是否同意查询天气？" } }]);
    expect(paused.messages.map((m) => m.type)).toEqual(["human", "ai"]);
    expect(paused.messages[1]).toMatchObject({ content: "好的，我来查询一下今天北京的天气情况。", tool_calls: [{ id: "call_00", name: "get_weather", args: { city: "北京" } }] });
    expect(log.take()).toEqual(["llm_node", "tool_node", "get_weather"]);

    const done = await graph.invoke(new Command({ resume: true }), { threadId: "tool_test" });
    expect(done.__interrupt__).toBeUndefined();
    expect(done.messages.map((m) => m.type)).toEqual(["human", "ai", "tool", "ai"]);
    expect(done.messages[2]).toMatchObject({ type: "tool", name: "get_weather", tool_call_id: "call_00", content: "北京 今天天气不错" });
    expect(done.messages[3]).toMatchObject({ type: "ai", content: "今天北京的天气不错哦！", tool_calls: [] });
    // The tool node (and the tool) ran again from the top; the model was not asked again before the tool.
    expect(log.take()).toEqual(["tool_node", "get_weather", "approved:true", "llm_node"]);
    expect(model.calls).toHaveLength(2);
  });

  it("three sequential interrupts in one node: answered one by one, replayed in order", async () => {
    const log = new RunLog();
    const graph = new StateGraph({ username: lastValue<string>(), age: lastValue<number>(), gender: lastValue<"male" | "female">() })
      .addNode("get_info_node", () => {
        log.hit("get_info_node");
        const username = interrupt<string>("请输入您的用户名：");
        const age = interrupt<number>("请输入您的年龄：");
        const gender = interrupt<"male" | "female">("请输入您的性别：(male/female)");
        return { username, age, gender };
      })
      .addEdge(START, "get_info_node")
      .addEdge("get_info_node", END)
      .compile({ checkpointer: saver() });
    const config = { threadId: "seq_interrupt_test" };

    const asked = async (input: Parameters<typeof graph.invoke>[0]) => (await graph.invoke(input, config)).__interrupt__?.map((i) => i.value);
    expect(await asked({})).toEqual(["请输入您的用户名："]);
    expect(await asked(new Command({ resume: "小黄" }))).toEqual(["请输入您的年龄："]);
    expect(await asked(new Command({ resume: 15 }))).toEqual(["请输入您的性别：(male/female)"]);
    expect(await graph.invoke(new Command({ resume: "male" }), config)).toEqual({ username: "小黄", age: 15, gender: "male" });
    expect(log.count("get_info_node")).toBe(4);
  });

  it("input validation: interrupt again until the answer is valid", async () => {
    const log = new RunLog();
    const graph = new StateGraph({ age: lastValue<number>() })
      .addNode("get_age", () => {
        log.hit("get_age");
        let question = "请输入您的年龄";
        for (;;) {
          const answer = interrupt<string>(question);
          const age = Number(answer);
          if (Number.isInteger(age) && age > 0) return { age };
          question = `“${answer}” 不是有效的年龄，请重新输入`;
        }
      })
      .addEdge(START, "get_age")
      .addEdge("get_age", END)
      .compile({ checkpointer: saver() });
    const config = { threadId: "validate" };

    const first = await graph.invoke({}, config);
    expect(first.__interrupt__?.map((i) => i.value)).toEqual(["请输入您的年龄"]);
    const second = await graph.invoke(new Command({ resume: "abc" }), config);
    expect(second.__interrupt__?.map((i) => i.value)).toEqual(["“abc” 不是有效的年龄，请重新输入"]);
    const third = await graph.invoke(new Command({ resume: "-5" }), config);
    expect(third.__interrupt__?.map((i) => i.value)).toEqual(["“-5” 不是有效的年龄，请重新输入"]);
    expect(await graph.invoke(new Command({ resume: "30" }), config)).toEqual({ age: 30 });
    expect(log.count("get_age")).toBe(4);
    expect((await graph.getState("validate")).next).toEqual([]);
  });
});
