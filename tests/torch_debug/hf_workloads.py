"""transformers models built from tiny configs with random weights (never downloaded)."""
import torch

from workloads import _flat


def _ids(vocab, shape=(2, 8)):
    return torch.randint(0, vocab, shape, generator=torch.Generator().manual_seed(1))


def w_bert(backend):
    from transformers import BertConfig, BertModel

    torch.manual_seed(0)
    cfg = BertConfig(vocab_size=64, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                     intermediate_size=32, max_position_embeddings=32)
    model = BertModel(cfg).eval()
    out = torch.compile(model, backend=backend)(input_ids=_ids(64))
    return _flat(out.last_hidden_state, out.pooler_output)


def w_gpt2_labels(backend):
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(0)
    cfg = GPT2Config(vocab_size=64, n_embd=16, n_layer=1, n_head=2, n_positions=32,
                     bos_token_id=0, eos_token_id=1)
    model = GPT2LMHeadModel(cfg)
    ids = _ids(64)
    out = torch.compile(model, backend=backend)(input_ids=ids, labels=ids)
    out.loss.backward()
    return _flat(out.loss, out.logits, [p.grad for p in model.parameters() if p.grad is not None])


def w_llama(backend):
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    cfg = LlamaConfig(vocab_size=64, hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                      num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=32)
    model = LlamaForCausalLM(cfg).eval()
    out = torch.compile(model, backend=backend)(input_ids=_ids(64))
    return _flat(out.logits)


def w_t5(backend):
    from transformers import T5Config, T5ForConditionalGeneration

    torch.manual_seed(0)
    cfg = T5Config(vocab_size=64, d_model=16, d_kv=8, d_ff=32, num_layers=1, num_decoder_layers=1,
                   num_heads=2, decoder_start_token_id=0)
    model = T5ForConditionalGeneration(cfg).eval()
    out = torch.compile(model, backend=backend)(input_ids=_ids(64), decoder_input_ids=_ids(64, (2, 4)))
    return _flat(out.logits)


def w_gpt2_generate(backend):
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(0)
    cfg = GPT2Config(vocab_size=64, n_embd=16, n_layer=1, n_head=2, n_positions=32,
                     bos_token_id=0, eos_token_id=1)
    model = GPT2LMHeadModel(cfg).eval()
    model.forward = torch.compile(model.forward, backend=backend)
    out = model.generate(_ids(64, (1, 4)), max_new_tokens=3, do_sample=False, pad_token_id=0)
    return _flat(out)


def w_qwen2_4layers(backend):
    """Four decoder layers (9 parameters each): Dynamo calls the graph with more than 30
    tensors, as it does for every real model."""
    from transformers import Qwen2Config, Qwen2ForCausalLM

    torch.manual_seed(0)
    cfg = Qwen2Config(vocab_size=64, hidden_size=16, intermediate_size=32, num_hidden_layers=4,
                      num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=32)
    model = Qwen2ForCausalLM(cfg).eval()
    out = torch.compile(model, backend=backend)(input_ids=_ids(64))
    return _flat(out.logits)


HF_WORKLOADS = {
    # transformers wraps forward() in a decorator named `wrapper`: that is the frame compiled
    "hf_bert": (w_bert, ["wrapper"]),
    "hf_gpt2_labels": (w_gpt2_labels, ["wrapper", "ForCausalLMLoss"]),
    "hf_llama": (w_llama, ["wrapper"]),
    "hf_t5": (w_t5, ["wrapper"]),
    "hf_gpt2_generate": (w_gpt2_generate, ["wrapper"]),
    "hf_qwen2_4layers": (w_qwen2_4layers, ["wrapper"]),
}
